import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { AppError } from '../contract/errors.js';
import { modelLabel } from '../contract/model-label.js';
import type { ArtifactRunView } from '../contract/skills.js';
import type { TraceView } from '../contract/traces.js';
import type { Llm } from '../llm/index.js';
import type { CliContext } from './context.js';
import { untilInterrupted, withClient } from './host.js';
import { addLlmOptions } from './llm-commands.js';
import { registerSkillAccessCommands } from './skill-access-commands.js';
import { positiveInt } from './skills-commands.js';

/** Parse `--context JSON` (an object) or `--context @file.json`. */
export async function parseContext(text: string | undefined): Promise<Record<string, unknown>> {
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
  // Before anything copies it (copies recurse): a context nested 10,000 deep is bad input.
  (await import('../templates/index.js')).checkContext(value);
  return value as Record<string, unknown>;
}

function maxOutputBytes(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0 || n > 64 * 1024 * 1024)
    throw new InvalidArgumentError('--max-output must be a whole number of bytes, at most 67108864 (64 MiB)');
  return n;
}

/** The model from `--provider/--model/--base-url` (or SKILLDESK_* variables), or null. */
export async function llmFromFlags(ctx: CliContext, flags: Record<string, unknown>): Promise<Llm | null> {
  // Loaded per command: the providers' SDKs are most of what a model costs to start.
  const { createLlm, envKeySource, llmConfigFromFlags, readPriceTable } = await import('../llm/index.js');
  const { resolveHome } = await import('../store/index.js');
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
  const warn = (m: string) => {
    if (!ctx.globals().json) ctx.io.stderr(`warning: ${m}\n`);
  };
  const prices = readPriceTable(home);
  if (prices.warning) warn(prices.warning);
  return createLlm(config, { keys: envKeySource(ctx.env), prices: prices.table, onWarning: warn });
}

function humanResult(r: ArtifactRunView, name: (id: string) => string | null = (id) => id): string {
  const head = `── ${r.kind} "${r.artifact}"${r.model_variant ? ` (${r.model_variant})` : ''} · ${r.ok ? 'ok' : 'failed'} · ${r.duration_ms} ms · trace ${r.trace_id}`;
  const lines = [head];
  if (r.fallback)
    lines.push(`   (fell back to prompt_template "${r.fallback.artifact}": ${r.fallback.reason})`);
  if (r.stdout) lines.push(r.stdout.trimEnd());
  if (r.text != null && !r.stdout) lines.push(r.text.trimEnd());
  else if (r.data !== null) lines.push(JSON.stringify(r.data, null, 2));
  if (r.error) lines.push(`error: ${r.error.message}`);
  for (const a of r.assertions) {
    const mark = a.skipped ? '–' : a.passed ? '✓' : '✗';
    lines.push(
      `   ${mark} ${a.severity} ${a.type}: ${a.description}${a.explanation ? ` (${a.explanation})` : ''}`,
    );
  }
  const usage = r.input_tokens != null ? ` · ${r.input_tokens} in / ${r.output_tokens} out tokens` : '';
  const cost = r.estimated_cost ? ` · ~$${Number(r.estimated_cost.toPrecision(2))}` : '';
  if (usage || cost) lines.push(`   ${r.model_id ? (name(r.model_id) ?? '') : ''}${usage}${cost}`);
  return lines.join('\n');
}

/** The trace row as `traces --json` prints it: the stored columns, its store and its skill's name. */
function traceJson(t: TraceView) {
  const { artifact_name: _, ...row } = t;
  return row;
}

/** `render`, `run-skill` and `traces` (and the `skills` group's LLM skill access commands). */
export function registerDispatchCommands(program: Command, ctx: CliContext): void {
  registerSkillAccessCommands(program, ctx);
  program
    .command('render')
    .description('render a MiniJinja prompt template file with a JSON context')
    .argument('<file>', 'template file')
    .option('--context <json>', 'variables as a JSON object, or @file.json')
    .option('--lenient', 'render undefined variables as empty instead of failing', false)
    .option('--strict', 'fail on any use of an undefined variable, even in {% if %}', false)
    .option('--check', 'only check the syntax, do not render', false)
    .option('--max-output <bytes>', 'largest rendered output in bytes (default 1 MiB)', maxOutputBytes)
    .action(
      async (
        file: string,
        o: { context?: string; lenient: boolean; strict: boolean; check: boolean; maxOutput?: number },
      ) => {
        const path = resolve(file);
        if (!existsSync(path)) throw new AppError('USAGE', `${file}: no such file`);
        const source = readFileSync(path, 'utf8');
        if (o.check) {
          const r = await withClient(ctx, (c) =>
            c.invoke('skills/validate', { kind: 'template', source, name: file }),
          );
          if (!r.ok)
            throw new AppError('TEMPLATE_SYNTAX', `${file}: ${r.message}`, {
              line: r.line,
              column: r.column,
            });
          ctx.print({ ok: true }, () => `${file}: ok`);
          return;
        }
        const context = await parseContext(o.context);
        const { rendered } = await withClient(ctx, (c) =>
          c.invoke('skills/render', {
            source,
            context,
            name: file,
            undefined: o.lenient ? 'lenient' : o.strict ? 'strict' : 'semi_strict',
            ...(o.maxOutput ? { max_output_bytes: o.maxOutput } : {}),
          }),
        );
        if (ctx.globals().json) ctx.io.stdout(`${JSON.stringify({ rendered })}\n`);
        else ctx.io.stdout(rendered.endsWith('\n') ? rendered : `${rendered}\n`);
      },
    );

  addLlmOptions(
    program
      .command('run-skill')
      .description("run a skill's artifacts through the dispatcher, printing each output and its trace id")
      .argument('<name>', 'skill name')
      .option('--artifact <name>', 'run only this artifact')
      .option('--context <json>', 'variables as a JSON object, or @file.json')
      .option('--input <text>', 'the request (an LLM skill\'s user message; the variable "input")')
      .option('--session <id>', 'session id recorded in the traces (default: a new cli-… id)'),
    { configured: true },
  ).action(async (name: string, o: Record<string, unknown>) => {
    const context = await parseContext(o.context as string | undefined);
    if (typeof o.input === 'string') context.input = o.input;
    const llm = await llmFromFlags(ctx, o);
    const g = ctx.globals();
    const sessionId = (o.session as string | undefined) ?? `cli-${randomUUID()}`;
    const runId = randomUUID();
    const r = await withClient(
      ctx,
      async (c) => {
        const { skill } = await c.invoke('skills/get', { name });
        // People read the provider's label, never its internal id (--json keeps the ids).
        let modelName = (id: string): string | null => id;
        if (!g.json) {
          const settings = await c.invoke('settings/get', {});
          const providers = [...settings.configured, ...settings.providers];
          modelName = (id) => modelLabel(id, providers);
          const model = llm ?? settings.chat;
          ctx.io.stdout(
            `${skill.name} ${skill.version} [${skill.scope}] · session ${sessionId}${model ? ` · ${modelName(`${model.provider}:${model.model ?? ''}`)}` : ' · no model configured'}\n`,
          );
        }
        const stop = c.subscribe('skills/artifact-ran', (e) => {
          if (e.run_id === runId && !g.json) ctx.io.stdout(`${humanResult(e.result, modelName)}\n`);
        });
        try {
          return await untilInterrupted((signal) =>
            c.invoke(
              'skills/run',
              {
                name,
                scope: skill.scope,
                artifact: o.artifact as string | undefined,
                context,
                session_id: sessionId,
                run_id: runId,
              },
              { signal },
            ),
          );
        } finally {
          stop();
        }
      },
      // No --provider: the default provider set up with `skilldesk providers`.
      { llm: llm ?? 'configured' },
    );
    if (!r.ok) ctx.setExitCode(1);
    if (g.json) ctx.io.stdout(`${JSON.stringify(r)}\n`);
  });

  const traces = program
    .command('traces')
    .description('list skill execution traces, newest first')
    .option('--session <id>', 'only this session')
    .option('--skill <name>', 'only this skill')
    .option('--limit <n>', 'how many', positiveInt('--limit'), 50)
    .action(async (o: { session?: string; skill?: string; limit: number }) => {
      const { traces } = await withClient(ctx, (c) =>
        c.invoke('traces/list', { session_id: o.session, skill: o.skill, limit: o.limit }),
      );
      ctx.print({ traces: traces.map(traceJson) }, () => {
        if (traces.length === 0) return 'No traces yet. Run a skill with: skilldesk run-skill NAME';
        return traces
          .map((t) => {
            const status = t.error ? `✗ ${t.error.split('\n')[0]!.slice(0, 80)}` : '✓';
            const tokens = t.input_tokens != null ? ` ${t.input_tokens}/${t.output_tokens} tok` : '';
            const asserts = t.assertions_run ? ` asserts ${t.assertions_passed}/${t.assertions_run}` : '';
            return `${t.started_at}  ${t.id.slice(0, 8)}  ${(t.skill_name ?? t.skill_id).padEnd(22)} ${t.artifact_kind.padEnd(15)} ${String(t.duration_ms ?? '-').padStart(6)} ms${tokens}${asserts}  ${status}`;
          })
          .join('\n');
      });
    });

  // Traces as a DSPy dataset.
  traces
    .command('export')
    .description('write the matching traces as JSONL, oldest first: one DSPy example per line')
    .option('--session <id>', 'only this session')
    .option('--skill <name>', 'only this skill')
    .option('--kind <kind>', 'only this artifact kind (prompt_template, code_template, …)')
    .option('--status <status>', 'only ok, error or running traces')
    .option('--since <date>', 'started on or after this date (2026-11-22 or an ISO instant)')
    .option('--until <date>', 'started on or before this date')
    .option('--out <file>', 'write to this file instead of stdout')
    .action(async (_: unknown, cmd: Command) => {
      // `--session` and `--skill` are also options of `traces`, which commander gives to the parent.
      const o = cmd.optsWithGlobals<{
        session?: string;
        skill?: string;
        kind?: string;
        status?: string;
        since?: string;
        until?: string;
        out?: string;
      }>();
      if (o.status !== undefined && !['ok', 'error', 'running'].includes(o.status))
        throw new AppError('USAGE', `--status must be ok, error or running, not ${JSON.stringify(o.status)}`);
      const r = await withClient(ctx, (c) =>
        c.invoke('traces/export', {
          session_id: o.session,
          skill: o.skill,
          artifact_kind: o.kind,
          status: o.status as 'ok' | 'error' | 'running' | undefined,
          since: o.since,
          until: o.until,
        }),
      );
      if (o.out === undefined) {
        ctx.io.stdout(r.jsonl);
        return;
      }
      const file = resolve(o.out);
      (await import('../store/index.js')).writeFileAtomic(file, r.jsonl);
      ctx.print(
        { file, count: r.count },
        () => `Wrote ${r.count} trace${r.count === 1 ? '' : 's'} to ${file}`,
      );
    });
}
