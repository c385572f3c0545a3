import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { AppError } from '../contract/errors.js';
import { createSkillRuntime, type DispatchResult, PromptEngine } from '../dispatch/index.js';
import { createLlm, envKeySource, type Llm, llmConfigFromFlags, loadPriceTable } from '../llm/index.js';
import { openCatalog, type SkillCatalog } from '../skills/index.js';
import { resolveHome } from '../store/paths.js';
import { type TraceRow, TraceStore } from '../traces/index.js';
import { indexWorkspacePages, WorkspacePages } from '../workspace/index.js';
import type { CliContext } from './context.js';
import { addLlmOptions } from './llm-commands.js';
import { addCommands, setExitCode } from './main.js';
import { positiveInt } from './skills-commands.js';

/** Parse `--context JSON` (an object) or `--context @file.json`. */
export function parseContext(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let src = text;
  if (text.startsWith('@')) {
    const file = resolve(text.slice(1));
    if (!existsSync(file)) throw new AppError('USAGE', `--context ${text}: no such file`);
    src = readFileSync(file, 'utf8');
  }
  let value: unknown;
  try {
    value = JSON.parse(src);
  } catch (e) {
    throw new AppError('USAGE', `--context must be a JSON object: ${(e as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AppError('USAGE', '--context must be a JSON object such as {"text": "…"}');
  }
  return value as Record<string, unknown>;
}

/** The model from `--provider/--model/--base-url` (or SKILLDESK_* variables), or null. */
export function llmFromFlags(ctx: CliContext, flags: Record<string, unknown>): Llm | null {
  const config = llmConfigFromFlags(
    {
      provider: flags.provider as string | undefined,
      model: flags.model as string | undefined,
      baseUrl: flags.baseUrl as string | undefined,
      apiKeyEnv: flags.apiKeyEnv as string | undefined,
    },
    ctx.env,
  );
  if (!config) return null;
  const home = resolveHome(ctx.globals().home, ctx.env);
  return createLlm(config, {
    keys: envKeySource(ctx.env),
    prices: loadPriceTable(home),
    onWarning: (m) => {
      if (!ctx.globals().json) ctx.io.stderr(`warning: ${m}\n`);
    },
  });
}

function tracesFor(catalog: SkillCatalog, scope: 'account' | 'workspace'): TraceStore {
  return new TraceStore((catalog.store(scope) ?? catalog.account).db);
}

function resultJson(r: DispatchResult) {
  return {
    artifact: r.artifact.name,
    kind: r.artifact.kind,
    model_variant: r.artifact.model_variant,
    ok: r.ok,
    text: r.output?.text ?? null,
    data: r.output?.data ?? null,
    injected: r.output?.injected ?? false,
    fallback: r.output?.fallback ?? null,
    stdout: r.output?.stdout ?? null,
    error: r.error,
    assertions: r.assertions,
    trace_id: r.trace_id,
    duration_ms: r.duration_ms,
    input_tokens: r.output?.input_tokens ?? null,
    output_tokens: r.output?.output_tokens ?? null,
    model_id: r.output?.model_id ?? null,
    estimated_cost: r.output?.estimated_cost ?? null,
  };
}

function humanResult(r: DispatchResult): string {
  const head = `── ${r.artifact.kind} "${r.artifact.name}"${r.artifact.model_variant ? ` (${r.artifact.model_variant})` : ''} · ${r.ok ? 'ok' : 'failed'} · ${r.duration_ms} ms · trace ${r.trace_id}`;
  const lines = [head];
  if (r.output?.fallback)
    lines.push(
      `   (fell back to prompt_template "${r.output.fallback.artifact}": ${r.output.fallback.reason})`,
    );
  if (r.output?.stdout) lines.push(r.output.stdout.trimEnd());
  if (r.output?.text != null && !r.output.stdout) lines.push(r.output.text.trimEnd());
  else if (r.output?.data !== undefined) lines.push(JSON.stringify(r.output.data, null, 2));
  if (r.error) lines.push(`error: ${r.error.message}`);
  for (const a of r.assertions) {
    const mark = a.skipped ? '–' : a.passed ? '✓' : '✗';
    lines.push(
      `   ${mark} ${a.severity} ${a.type}: ${a.description}${a.explanation ? ` (${a.explanation})` : ''}`,
    );
  }
  const usage =
    r.output?.input_tokens != null
      ? ` · ${r.output.input_tokens} in / ${r.output.output_tokens} out tokens`
      : '';
  const cost = r.output?.estimated_cost != null ? ` · ~$${r.output.estimated_cost.toFixed(6)}` : '';
  if (usage || cost) lines.push(`   ${r.output?.model_id ?? ''}${usage}${cost}`);
  return lines.join('\n');
}

addCommands((program: Command, ctx: CliContext) => {
  program
    .command('render')
    .description('render a MiniJinja prompt template file with a JSON context')
    .argument('<file>', 'template file')
    .option('--context <json>', 'variables as a JSON object, or @file.json')
    .option('--lenient', 'render undefined variables as empty instead of failing', false)
    .option('--strict', 'fail on any use of an undefined variable, even in {% if %}', false)
    .option('--check', 'only check the syntax, do not render', false)
    .action((file: string, o: { context?: string; lenient: boolean; strict: boolean; check: boolean }) => {
      const path = resolve(file);
      if (!existsSync(path)) throw new AppError('USAGE', `${file}: no such file`);
      const source = readFileSync(path, 'utf8');
      const engine = new PromptEngine();
      if (o.check) {
        const r = engine.validate(source, file);
        if (!r.ok)
          throw new AppError('TEMPLATE_SYNTAX', `${file}: ${r.message}`, { line: r.line, column: r.column });
        ctx.print({ ok: true }, () => `${file}: ok`);
        return;
      }
      const rendered = engine.renderStr(source, parseContext(o.context), {
        name: file,
        undefined: o.lenient ? 'lenient' : o.strict ? 'strict' : 'semi_strict',
      });
      if (ctx.globals().json) ctx.io.stdout(`${JSON.stringify({ rendered })}\n`);
      else ctx.io.stdout(rendered.endsWith('\n') ? rendered : `${rendered}\n`);
    });

  addLlmOptions(
    program
      .command('run-skill')
      .description("run a skill's artifacts through the dispatcher, printing each output and its trace id")
      .argument('<name>', 'skill name')
      .option('--artifact <name>', 'run only this artifact')
      .option('--context <json>', 'variables as a JSON object, or @file.json')
      .option('--session <id>', 'session id recorded in the traces (default: a new cli-… id)'),
  ).action(async (name: string, o: Record<string, unknown>) => {
    const variables = parseContext(o.context as string | undefined);
    const llm = llmFromFlags(ctx, o);
    const g = ctx.globals();
    const catalog = openCatalog({ home: g.home, workspace: g.workspace, env: ctx.env });
    const home = resolveHome(g.home, ctx.env);
    const sessionId = (o.session as string | undefined) ?? `cli-${randomUUID()}`;
    let workspace: WorkspacePages | undefined;
    if (catalog.workspace && g.workspace) {
      indexWorkspacePages(catalog.workspace.db, resolve(g.workspace));
      workspace = new WorkspacePages(catalog.workspace.db);
    }
    const found = catalog.resolve(name);
    if (!found) {
      catalog.close();
      throw new AppError('NOT_FOUND', `no skill named "${name}"; see: skilldesk skills list`, { name });
    }
    const runtime = createSkillRuntime({
      traces: tracesFor(catalog, found.scope),
      home,
      llm,
      workspace,
      log: (l) => {
        if (ctx.env.SKILLDESK_DEBUG) ctx.io.stderr(`${l}\n`);
      },
    });
    const abort = new AbortController();
    const onSignal = () => abort.abort();
    process.once('SIGINT', onSignal);
    try {
      const { skill, scope } = found;
      if (!g.json)
        ctx.io.stdout(
          `${skill.name} ${skill.version} [${scope}] · session ${sessionId}${llm ? ` · ${llm.provider}:${llm.model}` : ' · no model configured'}\n`,
        );
      const results = await runtime.dispatcher.runSkill({
        session_id: sessionId,
        skill: { id: skill.id, name: skill.name, scope, version: skill.version },
        artifacts: skill.artifacts,
        variables,
        harness: { session_id: sessionId, ...(g.workspace ? { workspace: resolve(g.workspace) } : {}) },
        llm,
        signal: abort.signal,
        artifact: o.artifact as string | undefined,
        onResult: (r) => {
          if (!g.json) ctx.io.stdout(`${humanResult(r)}\n`);
        },
      });
      if (results.some((r) => !r.ok)) setExitCode(1);
      if (g.json) {
        ctx.io.stdout(
          `${JSON.stringify({ skill: skill.name, scope, version: skill.version, session_id: sessionId, ok: results.every((r) => r.ok), results: results.map(resultJson) })}\n`,
        );
      }
    } finally {
      process.off('SIGINT', onSignal);
      await runtime.dispose();
      catalog.close();
    }
  });

  program
    .command('traces')
    .description('list skill execution traces, newest first')
    .option('--session <id>', 'only this session')
    .option('--skill <name>', 'only this skill')
    .option('--limit <n>', 'how many', positiveInt('--limit'), 50)
    .action((o: { session?: string; skill?: string; limit: number }) => {
      const g = ctx.globals();
      const catalog = openCatalog({ home: g.home, workspace: g.workspace, env: ctx.env });
      try {
        const rows: Array<TraceRow & { scope: string; skill_name: string | null }> = [];
        for (const store of catalog.stores()) {
          const names = new Map(store.repo.listSkills().map((s) => [s.id, s.name]));
          const skillIds = o.skill
            ? [...names].filter(([, n]) => n.toLowerCase() === o.skill!.toLowerCase()).map(([id]) => id)
            : [undefined];
          for (const skill_id of skillIds) {
            for (const t of new TraceStore(store.db).list({
              session_id: o.session,
              skill_id,
              limit: o.limit,
            })) {
              rows.push({ ...t, scope: store.scope, skill_name: names.get(t.skill_id) ?? null });
            }
          }
        }
        rows.sort((a, b) => b.started_at.localeCompare(a.started_at));
        const list = rows.slice(0, o.limit);
        ctx.print({ traces: list }, () => {
          if (list.length === 0) return 'No traces yet. Run a skill with: skilldesk run-skill NAME';
          return list
            .map((t) => {
              const status = t.error ? `✗ ${t.error.split('\n')[0]!.slice(0, 80)}` : '✓';
              const tokens = t.input_tokens != null ? ` ${t.input_tokens}/${t.output_tokens} tok` : '';
              const asserts = t.assertions_run ? ` asserts ${t.assertions_passed}/${t.assertions_run}` : '';
              return `${t.started_at}  ${t.id.slice(0, 8)}  ${(t.skill_name ?? t.skill_id).padEnd(22)} ${t.artifact_kind.padEnd(15)} ${String(t.duration_ms ?? '-').padStart(6)} ms${tokens}${asserts}  ${status}`;
            })
            .join('\n');
        });
      } finally {
        catalog.close();
      }
    });
});
