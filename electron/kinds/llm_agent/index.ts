import { AppError, type AppErrorData } from '../../contract/errors.js';
import type { Llm, LlmMessage } from '../../llm/index.js';
import { PROVIDERS } from '../../llm/index.js';
import type { SkillArtifact } from '../../store/index.js';
import { fail, NO_LLM, settle, succeed } from '../result.js';
import type { KindContext, KindModule, KindRuntimes, TraceDraft } from '../types.js';
import { runComponent } from '../wasm_component/index.js';
import { buildArgv, toolSpec } from './argv.js';
import {
  LLM_SKILL_DEFAULTS,
  LLM_SKILL_KEYS,
  type LlmSkill,
  LlmSkillSchema,
  type LlmTool,
  parseLlmSkill,
  toolProgram,
  validateLlmAgent,
} from './schema.js';
import { runToolScript } from './tool-script.js';

export { buildArgv, toolSpec } from './argv.js';
export {
  LLM_SKILL_DEFAULTS,
  LLM_SKILL_KEYS,
  type LlmSkill,
  LlmSkillSchema,
  type LlmTool,
  PROVIDER_KEY_ENV_NAMES,
  parseLlmSkill,
} from './schema.js';

/** One step of an LLM skill's run, as its trace and the chat's activity show it. */
export type LlmSkillStep =
  | {
      type: 'model';
      model: string;
      input_tokens: number;
      output_tokens: number;
      tool_calls: string[];
      duration_ms: number;
    }
  | {
      type: 'tool';
      tool: string;
      argv: string[];
      ok: boolean;
      exit_code: number | null;
      /** What the model got back (stdout, or the error/stderr). */
      result: string;
      duration_ms: number;
    }
  | {
      type: 'http';
      tool: string;
      method: string;
      url: string;
      status: number | null;
      bytes: number;
      error?: string;
    };

/** Longest tool output handed back to the model (the start is kept and the cut is said). */
const MAX_TOOL_RESULT = 32_000;

const clip = (s: string) =>
  s.length <= MAX_TOOL_RESULT
    ? s
    : `${s.slice(0, MAX_TOOL_RESULT)}\n[… ${s.length - MAX_TOOL_RESULT} more characters cut]`;

/**
 * The model the skill runs on. No `provider`: the run's model (the chat's, or the command's), with
 * the skill's `model` on the same connection. A `provider` equal to the run's: the same connection
 * and key with the skill's model. Another provider: that provider as the user set it up; when it is
 * not, the run fails saying what to set — or, if the skill says `fallback_to_run_model`, the run's
 * model is used and the output says so.
 */
export function skillModel(
  spec: LlmSkill,
  run: Llm | null,
  runtimes: KindRuntimes,
  skillName: string,
): { ok: true; llm: Llm; fallback?: string } | { ok: false; error: AppErrorData } {
  const sibling = (llm: Llm, model: string | undefined): Llm =>
    model && model !== llm.model && llm.withModel ? llm.withModel(model) : llm;
  if (!spec.provider || (run && run.provider === spec.provider)) {
    if (!run)
      return {
        ok: false,
        error: {
          ...NO_LLM,
          message: `skill "${skillName}" runs on the chat's model and none is configured: ${NO_LLM.message}`,
        },
      };
    return { ok: true, llm: sibling(run, spec.model) };
  }
  const info = PROVIDERS[spec.provider];
  try {
    if (!runtimes.llmSkill) throw new Error('no providers are set up in this process');
    return { ok: true, llm: runtimes.llmSkill.modelFor(spec.provider, spec.model) };
  } catch (e) {
    if (spec.fallback_to_run_model && run)
      return {
        ok: true,
        llm: run,
        fallback: `${info.label} is not set up: ran on ${run.provider}:${run.model}`,
      };
    return {
      ok: false,
      error: {
        code: 'LLM_NOT_CONFIGURED',
        message: `skill "${skillName}" runs on ${info.label}${spec.model ? ` (${spec.model})` : ''}, which is not set up (${(e as Error).message}): add the ${info.label} key in Settings → Providers (or set ${info.envVar} for the command line), or add "fallback_to_run_model: true" to the skill to let it use the chat's model`,
        details: { provider: spec.provider, env_var: info.envVar },
      },
    };
  }
}

/** Whether a model error means the provider is not usable at all (so a fallback may apply). */
const unusable = (e: AppErrorData) => e.code === 'LLM_MISSING_KEY' || e.code === 'LLM_NOT_CONFIGURED';

/**
 * Run one tool call: build the argv by the fixed rules, run the skill's Python file in the sandbox
 * with only this skill's opted-in secrets and granted hosts, and turn the outcome into what the
 * model reads (stdout; on a non-zero exit, the stderr as an error it can react to).
 */
async function runTool(
  tool: LlmTool,
  args: unknown,
  spec: LlmSkill,
  ctx: KindContext,
  runtimes: KindRuntimes,
  steps: LlmSkillStep[],
): Promise<{ ok: boolean; content: string }> {
  const t0 = performance.now();
  const done = (ok: boolean, content: string, argv: string[], exit: number | null) => {
    steps.push({
      type: 'tool',
      tool: tool.name,
      argv,
      ok,
      exit_code: exit,
      result: content.length > 2000 ? `${content.slice(0, 2000)}…` : content,
      duration_ms: Math.round(performance.now() - t0),
    });
    return { ok, content };
  };
  const say = ctx.scope.progress;
  const built = buildArgv(tool, args);
  if (!built.ok) return done(false, built.error, [], null);
  const program = toolProgram(tool.command, ctx.artifacts);
  if (!program.ok) return done(false, program.message, [], null);
  const p = program.program;
  const argv = [...p.fixed_args, ...built.argv];
  say?.(`Running ${tool.name} ${argv.join(' ')}`.trim());
  const sandbox = runtimes.sandbox;
  if (p.type === 'component') {
    if (!sandbox) return done(false, 'the sandbox is turned off', argv, null);
    const artifact = ctx.artifacts.find((a) => a.name === p.artifact)!;
    const ran = await settle(() =>
      runComponent(sandbox, artifact, { ...ctx, variables: { ...(args as object), argv } }),
    );
    if (!ran.ok) return done(false, ran.error.message, argv, null);
    const r = ran.value;
    if (!r.ok) return done(false, r.error?.message ?? 'the component failed', argv, 1);
    return done(true, clip(typeof r.result === 'string' ? r.result : r.stdout), argv, 0);
  }
  if (!sandbox) return done(false, 'the Python sandbox is turned off, so this tool cannot run', argv, null);
  const skill = ctx.skill?.name ?? '';
  const env = runtimes.llmSkill?.secrets(skill, spec.tool_env) ?? {};
  const ran = await settle(() =>
    runToolScript(
      sandbox,
      {
        script: p.script,
        argv,
        env,
        timeout_ms: spec.timeout_ms ?? LLM_SKILL_DEFAULTS.timeout_ms,
        granted_hosts: runtimes.llmSkill?.grants(skill) ?? [],
        signal: ctx.scope.signal,
      },
      ctx,
    ),
  );
  if (!ran.ok) return done(false, `${tool.name} could not run: ${ran.error.message}`, argv, null);
  const r = ran.value;
  for (const h of r.http) {
    steps.push({ type: 'http', tool: tool.name, ...h });
    say?.(`${h.method} ${h.url} → ${h.status ?? `refused: ${h.error ?? ''}`}`);
  }
  say?.(`${tool.name} exited with ${r.exit_code}`);
  if (r.exit_code !== 0) {
    const err = r.stderr.trim() || r.stdout.trim() || '(no output)';
    return done(false, clip(`exit code ${r.exit_code}: ${err}`), argv, r.exit_code);
  }
  return done(true, clip(r.stdout), argv, 0);
}

/** What the loop knows so far, written into the trace whatever happens. */
function transcript(system: string, input: string, steps: LlmSkillStep[]): TraceDraft {
  return {
    rendered_input: `${system}\n\n--- request ---\n${input}`,
    raw_output: JSON.stringify(steps),
  };
}

/**
 * `llm_agent` (a `mode: llm` skill): the model runs the skill. Its content is the system prompt,
 * the run's `input` variable the user message; the tools its metadata declares are offered, each
 * call run as the skill's Python file in the sandbox and its output fed back, until the model
 * answers in text or `max_tool_rounds` rounds of tool calls have run.
 */
export const llmAgentKind: KindModule<'llm_agent'> = {
  kind: 'llm_agent',
  runs_in: 'model',
  validate: validateLlmAgent,
  declares(artifact) {
    const { path: _p, ...rest } = artifact.metadata ?? {};
    const spec = LlmSkillSchema.safeParse(rest);
    if (spec.success) return { network: spec.data.network, tool_env: spec.data.tool_env };
    // Not valid (an import's notices run beside its checks): the hosts as written, so the user still hears of them.
    const strings = (v: unknown) =>
      Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
    return { network: strings(rest.network), tool_env: strings(rest.tool_env) };
  },
  effects(artifact) {
    const network = llmAgentKind.declares!(artifact).network;
    return network.length > 0
      ? [{ effects: ['network'], why: `its tools may reach ${network.join(', ')} once you grant them` }]
      : [];
  },
  agentSkills: {
    path: () => null,
    // Only a second LLM prompt gets here (the first is SKILL.md's body).
    file: (_a, base) => `templates/${base}.llm-agent.txt`,
    // The skill's body before any other: its prompt is what SKILL.md says.
    body: () => 0,
    // Its settings are frontmatter keys of their own (`mode: llm`, `tools`, `model` …).
    frontmatter(a) {
      const fm: Record<string, unknown> = { mode: 'llm' };
      for (const [k, v] of Object.entries(a.metadata ?? {}))
        if (k !== 'path' && k !== 'assertions' && v !== undefined) fm[k] = v;
      return fm;
    },
    // A `mode: llm` SKILL.md: its body is the model's system prompt and its LLM fields (tools,
    // provider, model, limits, tool_env, network) the artifact's metadata, checked by `validate`.
    fromSkillMd(fm, body, file) {
      if (fm.mode === undefined || fm.mode === null) {
        const stray = LLM_SKILL_KEYS.filter((k) => k !== 'model' && fm[k] !== undefined);
        if (stray.length > 0)
          throw new AppError(
            'INVALID_INPUT',
            `${file}/SKILL.md: frontmatter ${stray[0]}: only a "mode: llm" skill takes ${stray.join(', ')}; add "mode: llm"`,
            { file, path: stray[0] },
          );
        return null;
      }
      if (fm.mode !== 'llm')
        throw new AppError(
          'INVALID_INPUT',
          `${file}/SKILL.md: frontmatter mode: must be "llm" (the model runs the skill) or left out`,
          { file, path: 'mode' },
        );
      const metadata: Record<string, unknown> = {};
      for (const k of LLM_SKILL_KEYS) if (fm[k] !== undefined) metadata[k] = fm[k];
      return { content: body, metadata };
    },
  },
  review: () => ({}),
  takes_over: true,
  async execute(artifact: SkillArtifact, ctx, runtimes) {
    const skillName = ctx.skill?.name ?? artifact.name;
    let spec: LlmSkill;
    try {
      spec = parseLlmSkill(artifact.metadata);
    } catch (e) {
      return fail(
        'INVALID_INPUT',
        `skill "${skillName}": its LLM settings are invalid (${(e as Error).message})`,
      );
    }
    const input = requestOf(ctx.variables);
    const steps: LlmSkillStep[] = [];
    const partial = () => transcript(artifact.content, input, steps);
    if (!input)
      return fail(
        'INVALID_INPUT',
        `skill "${skillName}" needs a request: pass --input TEXT (or the variable "input")`,
        partial(),
      );
    const chosen = skillModel(spec, ctx.scope.llm, runtimes, skillName);
    if (!chosen.ok) return { ok: false, error: chosen.error, partial: partial() };
    let llm = chosen.llm;
    let fallback = chosen.fallback;
    const tools = spec.tools.map(toolSpec);
    const maxRounds = spec.max_tool_rounds ?? LLM_SKILL_DEFAULTS.max_tool_rounds;
    const messages: LlmMessage[] = [{ role: 'user', content: input }];
    let inTokens = 0;
    let outTokens = 0;
    let cost: number | null = null;
    for (let round = 0; ; round++) {
      const t0 = performance.now();
      ctx.scope.progress?.(`Asking ${llm.provider}:${llm.model}${round > 0 ? ` (round ${round + 1})` : ''}`);
      const call = () =>
        llm.generate({
          system: artifact.content,
          messages,
          tools: tools.length > 0 ? tools : undefined,
          maxOutputTokens: spec.max_tokens ?? LLM_SKILL_DEFAULTS.max_tokens,
          signal: ctx.scope.signal,
        });
      let r = await settle(call);
      if (
        !r.ok &&
        round === 0 &&
        unusable(r.error) &&
        spec.fallback_to_run_model &&
        ctx.scope.llm &&
        llm !== ctx.scope.llm
      ) {
        fallback = `${llm.provider} could not be used (${r.error.message}): ran on ${ctx.scope.llm.provider}:${ctx.scope.llm.model}`;
        llm = ctx.scope.llm;
        r = await settle(call);
      }
      const model_id = `${llm.provider}:${llm.model}`;
      if (!r.ok) {
        const message =
          unusable(r.error) && spec.provider
            ? `skill "${skillName}" runs on ${PROVIDERS[llm.provider].label}: ${r.error.message} (or add "fallback_to_run_model: true" to the skill to let it use the chat's model)`
            : r.error.message;
        return {
          ok: false,
          error: { ...r.error, message },
          partial: { ...partial(), model_id, input_tokens: inTokens, output_tokens: outTokens },
        };
      }
      const res = r.value;
      inTokens += res.usage.input_tokens;
      outTokens += res.usage.output_tokens;
      if (res.estimated_cost != null) cost = (cost ?? 0) + res.estimated_cost;
      steps.push({
        type: 'model',
        model: `${res.provider}:${res.model}`,
        input_tokens: res.usage.input_tokens,
        output_tokens: res.usage.output_tokens,
        tool_calls: res.tool_calls.map((c) => c.name),
        duration_ms: Math.round(performance.now() - t0),
      });
      const usage = {
        model_id: `${res.provider}:${res.model}`,
        input_tokens: inTokens,
        output_tokens: outTokens,
        estimated_cost: cost,
      };
      if (res.tool_calls.length === 0) {
        if (res.finish_reason === 'content-filter')
          return fail(
            'LLM_REFUSED',
            `the model declined to answer (${usage.model_id} stopped on its content filter)`,
            {
              ...partial(),
              ...usage,
            },
          );
        return succeed({
          ...partial(),
          ...usage,
          text: res.text,
          data: {
            answer: res.text,
            model: usage.model_id,
            rounds: round,
            steps,
            ...(fallback ? { fallback_note: fallback } : {}),
          },
          raw_output: res.text,
        });
      }
      if (round >= maxRounds) {
        return fail(
          'LLM_FAILED',
          `skill "${skillName}": the model was still calling tools after ${maxRounds} round${maxRounds === 1 ? '' : 's'} (max_tool_rounds); raise max_tool_rounds in the skill or ask for less`,
          { ...partial(), ...usage },
          { max_tool_rounds: maxRounds, steps },
        );
      }
      messages.push({
        role: 'assistant',
        content: res.text,
        tool_calls: res.tool_calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
      });
      for (const c of res.tool_calls) {
        if (ctx.scope.signal?.aborted) return fail('CANCELLED', 'cancelled', { ...partial(), ...usage });
        const tool = spec.tools.find((t) => t.name === c.name);
        const out = !tool
          ? {
              ok: false,
              content: `there is no tool "${c.name}"; the tools are: ${spec.tools.map((t) => t.name).join(', ') || 'none'}`,
            }
          : c.invalid
            ? { ok: false, content: `the arguments did not parse: ${c.error ?? 'invalid JSON'}` }
            : await runTool(tool, c.args, spec, ctx, runtimes, steps);
        messages.push({
          role: 'tool',
          tool_call_id: c.id,
          name: c.name,
          content: out.content,
          is_error: !out.ok,
        });
      }
    }
  },
};

/** The request an LLM skill answers: `input` (the CLI's --input, the chat's request), else `request`/`text`. */
function requestOf(v: Record<string, unknown>): string {
  for (const k of ['input', 'request', 'text', 'query', 'prompt']) {
    const x = v[k];
    if (typeof x === 'string' && x.trim()) return x;
  }
  return '';
}
