import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { type ChatEvent, ChatStore, runTurn } from '../chat/index.js';
import { AppError } from '../contract/errors.js';
import { createSkillRuntime } from '../dispatch/index.js';
import { openCatalog } from '../skills/index.js';
import { resolveHome } from '../store/paths.js';
import { TraceStore } from '../traces/index.js';
import { indexWorkspacePages, WorkspacePages } from '../workspace/index.js';
import type { CliContext } from './context.js';
import { llmFromFlags } from './dispatch-commands.js';
import { addLlmOptions } from './llm-commands.js';
import { addCommands, setExitCode } from './main.js';
import { positiveInt } from './skills-commands.js';

function minScore(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || n >= 1)
    throw new Error('--memory-min-score must be a number in [0, 1)');
  return n;
}

addCommands((program: Command, ctx: CliContext) => {
  addLlmOptions(
    program
      .command('chat')
      .description(
        'send one message; streams the reply and shows which skills ran (a new session unless --session)',
      )
      .argument('<message>', 'your message')
      .option('--session <id>', 'continue this session')
      .addOption(
        new Option('--memory-scope <scope>', 'recall memory from')
          .choices(['workspace', 'session'])
          .default('workspace'),
      )
      .option('--memory-limit <n>', 'most memories recalled', positiveInt('--memory-limit'), 5)
      .option('--memory-min-score <x>', 'least relevance recalled, 0..1', minScore, 0.3)
      .option('--max-tool-rounds <n>', 'tool-call rounds per turn', positiveInt('--max-tool-rounds'), 10),
  ).action(async (message: string, o: Record<string, unknown>) => {
    const g = ctx.globals();
    const llm = llmFromFlags(ctx, o);
    const catalog = openCatalog(
      { home: g.home, workspace: g.workspace, env: ctx.env },
      { createWorkspace: true },
    );
    const store = catalog.workspace ?? catalog.account;
    let workspace: WorkspacePages | undefined;
    if (catalog.workspace && g.workspace) {
      indexWorkspacePages(catalog.workspace.db, resolve(g.workspace));
      workspace = new WorkspacePages(catalog.workspace.db);
    }
    const runtime = createSkillRuntime({
      traces: new TraceStore(store.db),
      home: resolveHome(g.home, ctx.env),
      llm,
      workspace,
    });
    const abort = new AbortController();
    const onSignal = () => abort.abort();
    process.once('SIGINT', onSignal);
    const err = (s: string) => {
      if (!g.json) ctx.io.stderr(`${s}\n`);
    };
    try {
      let streamed = false;
      const emit = (e: ChatEvent) => {
        if (g.json) {
          ctx.io.stdout(`${JSON.stringify(e)}\n`);
          return;
        }
        switch (e.type) {
          case 'turn-started':
            err(`session ${e.session_id}${e.new_session ? ' (new)' : ''}`);
            if (e.matches.length) err(`skills in context: ${e.matches.map((m) => m.name).join(', ')}`);
            break;
          case 'text-delta':
            streamed = true;
            ctx.io.stdout(e.text);
            break;
          case 'tool-call-started':
            if (streamed) ctx.io.stdout('\n');
            streamed = false;
            err(`⚙ ${e.name}${describeArgs(e.args)}`);
            break;
          case 'tool-call-finished':
            err(
              `  ${e.ok ? '✓' : '✗'} ${e.name}${e.skill ? ` ${e.skill}` : ''}${e.artifacts?.length ? ` [${e.artifacts.join(', ')}]` : ''}${e.trace_ids?.length ? ` traces ${e.trace_ids.map((t) => t.slice(0, 8)).join(' ')}` : ''}`,
            );
            break;
          case 'turn-finished': {
            if (streamed || e.text) ctx.io.stdout('\n');
            const used = e.skills_used.length ? `skills ran: ${e.skills_used.join(', ')}` : 'no skill ran';
            const tokens = llm ? ` · ${e.input_tokens} in / ${e.output_tokens} out tokens` : '';
            const cost = e.estimated_cost != null ? ` · ~$${e.estimated_cost.toFixed(6)}` : '';
            err(`— ${used}${tokens}${cost}`);
            if (e.error) err(`error: ${e.error.message}`);
            break;
          }
        }
      };
      const r = await runTurn(
        {
          catalog,
          chats: new ChatStore(store.db),
          dispatcher: runtime.dispatcher,
          llm,
          workspace: g.workspace ? resolve(g.workspace) : undefined,
        },
        {
          message,
          session_id: o.session as string | undefined,
          signal: abort.signal,
          settings: {
            max_tool_rounds: o.maxToolRounds as number,
            memory: {
              scope: o.memoryScope as 'workspace' | 'session',
              limit: o.memoryLimit as number,
              min_score: o.memoryMinScore as number,
            },
          },
        },
        emit,
      );
      if (r.status !== 'complete') setExitCode(1);
    } finally {
      process.off('SIGINT', onSignal);
      await runtime.dispose();
      catalog.close();
    }
  });

  program
    .command('sessions')
    .description('list chat sessions, most recent first')
    .option('--limit <n>', 'how many', positiveInt('--limit'), 50)
    .option('--show <id>', 'print the messages of one session')
    .action((o: { limit: number; show?: string }) => {
      const g = ctx.globals();
      const catalog = openCatalog({ home: g.home, workspace: g.workspace, env: ctx.env });
      try {
        const store = catalog.workspace ?? catalog.account;
        const chats = new ChatStore(store.db);
        if (o.show) {
          const session = chats.getSession(o.show);
          if (!session)
            throw new AppError('NOT_FOUND', `no chat session ${o.show}; list them with: skilldesk sessions`);
          const messages = chats.listMessages(o.show);
          ctx.print({ session, messages }, () =>
            messages
              .map(
                (m) =>
                  `${m.role === 'user' ? 'you' : 'assistant'} · ${m.created_at}${m.status !== 'complete' ? ` · ${m.status}` : ''}\n${m.content}\n`,
              )
              .join('\n'),
          );
          return;
        }
        const sessions = chats.listSessions(o.limit);
        ctx.print({ sessions }, () =>
          sessions.length === 0
            ? 'No sessions yet. Start one with: skilldesk chat "hello"'
            : sessions
                .map(
                  (s) =>
                    `${s.id}  ${s.updated_at}  ${String(s.message_count).padStart(3)} msgs  ${s.title || '(untitled)'}`,
                )
                .join('\n'),
        );
      } finally {
        catalog.close();
      }
    });
});

function describeArgs(args: unknown): string {
  if (!args || typeof args !== 'object') return '';
  const a = args as Record<string, unknown>;
  const bits = [a.name, a.query, a.artifact].filter((x) => typeof x === 'string');
  return bits.length ? ` ${bits.map((b) => JSON.stringify(b)).join(' ')}` : '';
}
