import { randomUUID } from 'node:crypto';
import { type Command, Option } from 'commander';
import type { EventName, EventPayload } from '../contract/channels.js';
import type { AttachmentInput, SendMessageReq, TurnFinishedEvent } from '../contract/chat.js';
import type { CoreClient } from '../transport/index.js';
import { answerApprovals } from './approvals.js';
import { type AttachedFile, readCliAttachment } from './chat-attach.js';
import type { CliContext } from './context.js';
import { llmFromFlags } from './dispatch-commands.js';
import { untilInterrupted, withClient } from './host.js';
import { addLlmOptions } from './llm-commands.js';
import { registerSessionExport } from './session-export.js';
import { positiveInt } from './skills-commands.js';

function minScore(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || n >= 1)
    throw new Error('--memory-min-score must be a number in [0, 1)');
  return n;
}

/** `chat` and `sessions`. */
export function registerChatCommands(program: Command, ctx: CliContext): void {
  addLlmOptions(
    program
      .command('chat')
      .description(
        'send one message; streams the reply and shows which skills ran (a new session unless --session)',
      )
      .argument('<message>', 'your message')
      .option('--session <id>', 'continue this session')
      .option(
        '--attach <file>',
        'send a file with the message: text, PDF (its text) or an image (repeat for more)',
        (v: string, prev: string[] = []) => [...prev, v],
      )
      .addOption(
        new Option('--memory-scope <scope>', 'recall memory from')
          .choices(['workspace', 'session'])
          .default('workspace'),
      )
      .option('--memory-limit <n>', 'most memories recalled', positiveInt('--memory-limit'), 5)
      .option('--memory-min-score <x>', 'least relevance recalled, 0..1', minScore, 0.3)
      .option('--max-tool-rounds <n>', 'tool-call rounds per turn', positiveInt('--max-tool-rounds'), 10)
      .option(
        '--yes',
        'allow every MCP tool call and run_python run without asking (without a terminal, they are denied unless --yes)',
      )
      .addOption(
        new Option(
          '--python <runtime>',
          'where run_python runs the model’s code: pyodide (the standard library) or full (CPython with the scientific stack)',
        )
          .choices(['pyodide', 'full'])
          .default('pyodide'),
      ),
    { configured: true },
  ).action(async (message: string, o: Record<string, unknown>) => {
    const g = ctx.globals();
    const llm = await llmFromFlags(ctx, o);
    const err = (s: string) => {
      if (!g.json) ctx.io.stderr(`${s}\n`);
    };
    let streamed = false;
    const show = (line: TurnLine) => {
      if (g.json) {
        ctx.io.stdout(`${JSON.stringify(line)}\n`);
        return;
      }
      switch (line.type) {
        case 'attachment':
          err(
            `attached ${line.name}${line.pages !== undefined ? ` (${line.pages_read} of ${line.pages} pages read)` : ''}`,
          );
          if (line.cut) err(`  ${line.cut}`);
          break;
        case 'turn-started':
          err(`session ${line.session_id}${line.new_session ? ' (new)' : ''}`);
          if (line.matches.length) err(`skills in context: ${line.matches.map((m) => m.name).join(', ')}`);
          if (line.listing && !line.listing.whole && line.listing.unlisted > 0)
            err(
              `${line.listing.unlisted} other skill${line.listing.unlisted === 1 ? '' : 's'} not listed (the catalog is over the listing budget; the model can search for them)`,
            );
          break;
        case 'text-delta':
          streamed = true;
          ctx.io.stdout(line.text);
          break;
        case 'tool-call-started':
          if (streamed) ctx.io.stdout('\n');
          streamed = false;
          err(`⚙ ${line.name}${describeArgs(line.args)}`);
          break;
        case 'tool-call-finished':
          err(
            `  ${line.ok ? '✓' : '✗'} ${line.name}${line.skill ? ` ${line.skill}` : ''}${line.artifacts?.length ? ` [${line.artifacts.join(', ')}]` : ''}${line.trace_ids?.length ? ` traces ${line.trace_ids.map((t) => t.slice(0, 8)).join(' ')}` : ''}`,
          );
          break;
        case 'turn-finished': {
          if (streamed || line.text) ctx.io.stdout('\n');
          const used = line.skills_used.length
            ? `skills ran: ${line.skills_used.join(', ')}`
            : 'no skill ran';
          const tokens =
            llm || line.input_tokens || line.output_tokens
              ? ` · ${line.input_tokens} in / ${line.output_tokens} out tokens`
              : '';
          const cost = line.estimated_cost ? ` · ~$${Number(line.estimated_cost.toPrecision(2))}` : '';
          err(`— ${used}${tokens}${cost}`);
          if (line.error) err(`error: ${line.error.message}`);
          break;
        }
      }
    };
    const finished = await withClient(
      ctx,
      async (c) => {
        const attachments: AttachmentInput[] = [];
        for (const path of (o.attach as string[] | undefined) ?? []) {
          const r = await readCliAttachment(c, path);
          attachments.push(r.attachment);
          show({ type: 'attachment', ...r.info });
        }
        const stopApprovals = answerApprovals(c, ctx, { yes: o.yes === true });
        try {
          return await untilInterrupted((signal) =>
            sendAndFollow(
              c,
              {
                message,
                session_id: o.session as string | undefined,
                ...(attachments.length ? { attachments } : {}),
                python: o.python as 'pyodide' | 'full',
                settings: {
                  max_tool_rounds: o.maxToolRounds as number,
                  memory: {
                    scope: o.memoryScope as 'workspace' | 'session',
                    limit: o.memoryLimit as number,
                    min_score: o.memoryMinScore as number,
                  },
                },
              },
              signal,
              show,
            ),
          );
        } finally {
          stopApprovals();
        }
      },
      // No --provider: the chat's own model, else the default set up with `skilldesk providers`.
      { llm: llm ?? 'configured' },
    );
    if (finished.status !== 'complete') ctx.setExitCode(1);
  });

  const sessions = program
    .command('sessions')
    .description('list chat sessions, most recent first; `sessions export ID` saves one')
    .option('--limit <n>', 'how many', positiveInt('--limit'), 50)
    .option('--show <id>', 'print the messages of one session')
    .action(async (o: { limit: number; show?: string }) => {
      if (o.show) {
        const id = o.show;
        const { session, messages } = await withClient(ctx, (c) =>
          c.invoke('chat/get-session', { session_id: id }),
        );
        const { running: _, ...row } = session;
        ctx.print({ session: row, messages }, () =>
          messages
            .map(
              (m) =>
                `${m.role === 'user' ? 'you' : 'assistant'} · ${m.created_at}${m.status !== 'complete' ? ` · ${m.status}` : ''}\n${m.content}\n`,
            )
            .join('\n'),
        );
        return;
      }
      const listed = await withClient(ctx, (c) => c.invoke('chat/list-sessions', { limit: o.limit }));
      const sessions = listed.sessions.map(({ running: _, ...row }) => row);
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
    });
  registerSessionExport(sessions, ctx);
}

/** One line of `chat --json`: a turn's events, each with its `type`. */
type TurnLine =
  | ({ type: 'attachment' } & AttachedFile)
  | {
      type: 'turn-started';
      session_id: string;
      user_message_id: string;
      new_session: boolean;
      matches: EventPayload<'chat/turn-started'>['matches'];
      memory: number;
      listing?: EventPayload<'chat/turn-started'>['listing'];
    }
  | { type: 'text-delta'; text: string }
  | ({ type: 'tool-call-started' } & Omit<EventPayload<'chat/tool-call-started'>, 'session_id'>)
  | ({ type: 'tool-call-finished' } & Omit<EventPayload<'chat/tool-call-finished'>, 'session_id'>)
  | ({ type: 'turn-finished' } & Omit<TurnFinishedEvent, 'model_id' | 'created_at'>);

/**
 * Start a turn with `chat/send-message` and follow its events to the end, passing each on as a
 * {@link TurnLine}. Ctrl-C (`signal`) cancels the turn; its partial reply is kept.
 */
async function sendAndFollow(
  c: CoreClient,
  req: Omit<SendMessageReq, 'client_turn_id'>,
  signal: AbortSignal,
  show: (line: TurnLine) => void,
): Promise<TurnFinishedEvent> {
  const turnId = randomUUID();
  let sessionId: string | undefined;
  let done!: (e: TurnFinishedEvent) => void;
  const finished = new Promise<TurnFinishedEvent>((resolve) => {
    done = resolve;
  });
  const mine = (id: string) => sessionId !== undefined && id === sessionId;
  const on = <E extends EventName>(event: E, cb: (p: EventPayload<E>) => void) => c.subscribe(event, cb);
  const stops = [
    on('chat/turn-started', (e) => {
      if (e.client_turn_id !== turnId) return;
      sessionId = e.session_id;
      const { session_id, user_message_id, new_session, matches, memory, listing } = e;
      show({ type: 'turn-started', session_id, user_message_id, new_session, matches, memory, listing });
    }),
    on('chat/delta-received', (e) => {
      if (mine(e.session_id)) show({ type: 'text-delta', text: e.text });
    }),
    on('chat/tool-call-started', ({ session_id, ...rest }) => {
      if (mine(session_id)) show({ type: 'tool-call-started', ...rest });
    }),
    // The tool's result is for the app's activity view; the CLI's lines keep their shape.
    on('chat/tool-call-finished', ({ session_id, result: _result, ...rest }) => {
      if (mine(session_id)) show({ type: 'tool-call-finished', ...rest });
    }),
    on('chat/turn-finished', (e) => {
      if (!mine(e.session_id)) return;
      const { model_id: _m, created_at: _c, ...rest } = e;
      show({ type: 'turn-finished', ...rest });
      done(e);
    }),
  ];
  const cancel = () => {
    if (sessionId) void c.call('chat/cancel', { session_id: sessionId });
  };
  signal.addEventListener('abort', cancel, { once: true });
  try {
    await c.invoke('chat/send-message', { ...req, client_turn_id: turnId });
    return await finished;
  } finally {
    signal.removeEventListener('abort', cancel);
    for (const stop of stops) stop();
  }
}

function describeArgs(args: unknown): string {
  if (!args || typeof args !== 'object') return '';
  const a = args as Record<string, unknown>;
  const bits = [a.name, a.query, a.artifact].filter((x) => typeof x === 'string');
  return bits.length ? ` ${bits.map((b) => JSON.stringify(b)).join(' ')}` : '';
}
