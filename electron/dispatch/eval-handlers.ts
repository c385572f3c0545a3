import { explainMatch } from '../activation/index.js';
import type { CallContext, EventHub, HandlersFor } from '../contract/channels.js';
import { AppError, isAppError } from '../contract/errors.js';
import type {
  EvalResultView,
  EvalSkillReq,
  EvalSkillRes,
  RunSkillReq,
  RunSkillRes,
} from '../contract/skills.js';
import type { Llm } from '../llm/index.js';
import {
  EVALS_PATH,
  type EvalRunOrigin,
  evalContext,
  evalRunHistory,
  loadSkillPrompts,
  readSkillEvals,
  recordEvalRun,
  resolveOrThrow,
  type SkillCatalog,
  type SkillEval,
  type SkillPrompts,
} from '../skills/index.js';
import { PromptEngine } from './prompt-engine.js';

/** What the eval slice needs. */
export interface SkillEvalHandlerDeps {
  catalog: () => SkillCatalog;
  run: (req: RunSkillReq, ctx: CallContext) => Promise<RunSkillRes>;
  llm: () => Llm | null;
  now: () => number;
  /** Where `skills/eval-progressed` goes. */
  events?: Pick<EventHub, 'emit'>;
}

const DEFAULT_THRESHOLD = 0.8;

/** The skill whose templates are the judge's and the router's prompts (seed-skills/eval-judge.json). */
export const EVAL_JUDGE_SKILL = 'Eval Judge';
const JUDGE_PARTS = ['Judge System', 'Judge', 'Route System', 'Route'] as const;
type JudgePart = (typeof JUDGE_PARTS)[number];
type JudgePrompts = SkillPrompts<JudgePart>;

/** The eval prompts: the catalog's "Eval Judge" skill (workspace first), else the shipped one. */
export function loadEvalPrompts(catalog: SkillCatalog | null): JudgePrompts {
  return loadSkillPrompts(catalog, EVAL_JUDGE_SKILL, JUDGE_PARTS);
}

function render(prompts: JudgePrompts, part: JudgePart, vars: Record<string, unknown>): string {
  return new PromptEngine().renderStr(prompts.templates[part], vars, {
    name: `${EVAL_JUDGE_SKILL} / ${part}`,
    undefined: 'semi_strict',
  });
}

/**
 * Everything a run produced, as one text the assertions look at. Injected artifacts (instructions,
 * bundled files) count only when nothing else produced output, and the evals file never does: it
 * holds the expected values, so every `contains` check would pass on it.
 */
function outputText(r: RunSkillRes): string {
  const own = r.results.filter((a) => a.artifact !== EVALS_PATH);
  const produced = own.filter((a) => !a.injected);
  return (produced.length > 0 ? produced : own)
    .map((a) =>
      [a.text ?? '', a.data == null ? '' : JSON.stringify(a.data), a.stdout ?? ''].filter(Boolean).join('\n'),
    )
    .filter(Boolean)
    .join('\n');
}

/** Ask the model whether `statement` holds of `output`: PASS/FAIL and why. */
async function judge(
  llm: Llm,
  prompts: JudgePrompts,
  output: string,
  statement: string,
  expected: string | undefined,
  signal?: AbortSignal,
) {
  const r = await llm.generate({
    system: render(prompts, 'Judge System', {}),
    messages: [
      {
        role: 'user',
        content: render(prompts, 'Judge', {
          output: output.slice(0, 20_000),
          expected: expected ?? '',
          statement,
        }),
      },
    ],
    maxOutputTokens: 120,
    temperature: 0,
    timeoutMs: 60_000,
    signal,
  });
  const text = r.text.trim();
  return {
    passed: /^\W*pass\b/i.test(text),
    explanation: text.split('\n').slice(1).join(' ').trim() || text,
    usage: r.usage,
    cost: r.estimated_cost ?? 0,
  };
}

/**
 * A trigger eval's second phase: show the model the phase-1 top matches as the chat's skill index
 * does and ask which one it would apply, so authors see whether a skill that ranks also fires.
 */
async function modelChoice(
  llm: Llm,
  prompts: JudgePrompts,
  catalog: SkillCatalog,
  message: string,
  candidates: Array<{ name: string; scope: 'workspace' | 'account' }>,
  signal?: AbortSignal,
) {
  const skills = candidates.map((c) => {
    const s = catalog.resolve(c.name, c.scope)?.skill;
    return { name: c.name, description: s?.description ?? '', when: s?.when ?? '' };
  });
  const r = await llm.generate({
    system: render(prompts, 'Route System', {}),
    messages: [{ role: 'user', content: render(prompts, 'Route', { skills, message }) }],
    maxOutputTokens: 60,
    temperature: 0,
    timeoutMs: 60_000,
    signal,
  });
  const said = r.text.trim().replace(/^["'`*\s-]+|["'`*.\s]+$/g, '');
  const key = said.toLowerCase();
  const choice = candidates.find((c) => c.name.toLowerCase() === key)?.name ?? null;
  return { choice, usage: r.usage, cost: r.estimated_cost ?? 0 };
}

/**
 * The `skills/eval` channel: run a skill's evals (its bundled `evals/evals.json`). Trigger evals
 * (with `should_trigger`) check the phase-1 rank; output evals run the skill and check its own
 * assertions, the eval's `contains`/`not_contains` checks, and statements judged by the model.
 */
export function createSkillEvalHandlers(deps: SkillEvalHandlerDeps) {
  return createSkillEvals(deps).handlers;
}

/** Which evals of a run, and why it is remembered (optimize runs its validation split). */
export interface EvalRunOptions {
  ids?: readonly string[];
  origin?: EvalRunOrigin;
}

/** The eval slice and the runner behind it (`skills/optimize --evals` runs it before and after). */
export function createSkillEvals(deps: SkillEvalHandlerDeps) {
  const running = new Map<string, AbortController>();
  const handlers = {
    'skills/eval': async (req, outer) => {
      const abort = new AbortController();
      if (req.run_id) {
        if (running.has(req.run_id))
          throw new AppError('CONFLICT', `a run named ${req.run_id} is already running`);
        running.set(req.run_id, abort);
      }
      const onGone = () => abort.abort();
      outer.signal?.addEventListener('abort', onGone, { once: true });
      try {
        return await evaluate(req, { ...outer, signal: abort.signal });
      } finally {
        outer.signal?.removeEventListener('abort', onGone);
        if (req.run_id) running.delete(req.run_id);
      }
    },

    'skills/cancel-eval': (req) => {
      const abort = running.get(req.run_id);
      abort?.abort();
      return { cancelled: abort !== undefined };
    },

    'skills/eval-history': (req) => {
      const catalog = deps.catalog();
      const { skill, scope } = resolveOrThrow(catalog, req.name, req.scope);
      const store = catalog.store(scope)!;
      return { name: skill.name, scope, ...evalRunHistory(store.db, skill.name, req.limit) };
    },
  } satisfies Pick<HandlersFor<'skills'>, 'skills/eval' | 'skills/cancel-eval' | 'skills/eval-history'>;
  return { handlers, evaluate };

  async function evaluate(
    req: EvalSkillReq,
    ctx: CallContext,
    opts: EvalRunOptions = {},
  ): Promise<EvalSkillRes> {
    const started = deps.now();
    const catalog = deps.catalog();
    const { skill, scope } = resolveOrThrow(catalog, req.name, req.scope);
    const file = readSkillEvals(skill);
    const llm = deps.llm();
    // Read once per run, so a run judges every eval with the same prompts.
    const prompts = llm ? loadEvalPrompts(catalog) : null;
    const threshold = req.threshold ?? file.threshold ?? DEFAULT_THRESHOLD;
    const results: EvalResultView[] = [];
    const picked = file.evals
      .filter((e) =>
        req.only === 'trigger'
          ? e.should_trigger !== undefined
          : req.only === 'output'
            ? e.should_trigger === undefined
            : true,
      )
      .filter((e) => !opts.ids || opts.ids.includes(String(e.id)));
    for (const e of picked) {
      if (ctx.signal?.aborted) throw new AppError('CANCELLED', 'the eval run was cancelled');
      const r = e.should_trigger !== undefined ? await triggerEval(e) : await outputEval(e);
      results.push(r);
      if (req.run_id)
        deps.events?.emit('skills/eval-progressed', {
          run_id: req.run_id,
          done: results.length,
          total: picked.length,
          id: r.id,
          passed: r.passed,
        });
    }
    const passed = results.filter((r) => r.passed).length;
    const passRate = results.length ? passed / results.length : 0;
    const model = llm ? `${llm.provider}:${llm.model}` : null;
    const durationMs = Math.round(deps.now() - started);
    let recorded: number | null = null;
    if (req.record !== false && results.length > 0) {
      // The catalog may have been reopened while the evals ran.
      const store = deps.catalog().store(scope);
      if (store)
        recorded = recordEvalRun(store.db, {
          name: skill.name,
          version: skill.version,
          model,
          only: req.only ?? 'all',
          total: results.length,
          passed,
          pass_rate: Math.round(passRate * 1000) / 1000,
          threshold,
          results,
          duration_ms: durationMs,
          origin: opts.origin ?? 'eval',
        });
    }
    return {
      name: skill.name,
      scope,
      model,
      threshold,
      total: results.length,
      passed,
      pass_rate: Math.round(passRate * 1000) / 1000,
      ok: results.length > 0 && passRate >= threshold,
      results,
      duration_ms: durationMs,
      input_tokens: results.reduce((n, r) => n + r.input_tokens, 0),
      output_tokens: results.reduce((n, r) => n + r.output_tokens, 0),
      estimated_cost: results.reduce((n, r) => n + r.estimated_cost, 0),
      recorded,
    };

    async function triggerEval(e: SkillEval): Promise<EvalResultView> {
      const t0 = deps.now();
      const ex = explainMatch(catalog, e.prompt, { limit: 5, skill: skill.name, skill_scope: scope });
      const rank = ex.skill?.rank ?? null;
      const fired = rank !== null && rank <= 5;
      let chose: boolean | null = null;
      let choice: string | null = null;
      let usage = { input_tokens: 0, output_tokens: 0 };
      let cost = 0;
      let judgeError: string | null = null;
      if (fired && llm && prompts) {
        try {
          const m = await modelChoice(llm, prompts, catalog, e.prompt, ex.candidates, ctx.signal);
          choice = m.choice;
          chose = m.choice !== null && m.choice.toLowerCase() === skill.name.toLowerCase();
          usage = m.usage;
          cost = m.cost;
        } catch (err) {
          if (isAppError(err) && err.code === 'CANCELLED') throw err;
          judgeError = isAppError(err) ? err.message : String(err);
        }
      }
      const activated = fired && chose !== false;
      const passed = judgeError === null && (e.should_trigger ? activated : !activated);
      return {
        id: String(e.id),
        kind: 'trigger',
        prompt: e.prompt,
        should_trigger: e.should_trigger,
        rank,
        model_chose: chose,
        model_choice: choice,
        passed,
        reason: passed
          ? null
          : judgeError
            ? `the model could not be asked: ${judgeError}`
            : e.should_trigger
              ? fired
                ? `ranked ${rank}, but the model chose ${choice ? `"${choice}"` : 'no skill'}`
                : `not in the top 5 (${ex.skill?.reason ?? 'not found'})`
              : `ranked ${rank}${chose ? ' and the model chose it' : ''} (should not activate)`,
        checks: [],
        duration_ms: Math.round(deps.now() - t0),
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        estimated_cost: cost,
      };
    }

    async function outputEval(e: SkillEval): Promise<EvalResultView> {
      const t0 = deps.now();
      const base = { id: String(e.id), kind: 'output' as const, prompt: e.prompt };
      let run: RunSkillRes;
      try {
        run = await deps.run({ name: skill.name, scope, context: evalContext(e), session_id: 'evals' }, ctx);
      } catch (err) {
        const message = isAppError(err) ? err.message : String(err);
        return {
          ...base,
          passed: false,
          reason: message,
          checks: [],
          duration_ms: Math.round(deps.now() - t0),
          input_tokens: 0,
          output_tokens: 0,
          estimated_cost: 0,
        };
      }
      const output = outputText(run);
      const checks: EvalResultView['checks'] = [];
      for (const a of run.results) {
        if (!a.ok)
          checks.push({
            check: `${a.artifact} ran`,
            passed: false,
            explanation: a.error?.message ?? 'failed',
          });
      }
      let inTokens = run.results.reduce((n, a) => n + (a.input_tokens ?? 0), 0);
      let outTokens = run.results.reduce((n, a) => n + (a.output_tokens ?? 0), 0);
      let judgeCost = 0;
      for (const a of e.assertions ?? []) {
        if (typeof a !== 'string') {
          const has = output.includes(a.value);
          const ok = a.type === 'contains' ? has : !has;
          checks.push({
            check: a.name ?? `${a.type} ${JSON.stringify(a.value).slice(0, 80)}`,
            passed: ok,
            explanation: ok ? 'ok' : `the output ${has ? 'contains' : 'does not contain'} it`,
          });
          continue;
        }
        if (!llm || !prompts) {
          checks.push({ check: a, passed: null, explanation: 'not judged: no model is configured' });
          continue;
        }
        try {
          const j = await judge(llm, prompts, output, a, e.expected_output, ctx.signal);
          inTokens += j.usage.input_tokens;
          outTokens += j.usage.output_tokens;
          judgeCost += j.cost;
          checks.push({ check: a, passed: j.passed, explanation: j.explanation });
        } catch (err) {
          checks.push({
            check: a,
            passed: false,
            explanation: `the judge failed: ${isAppError(err) ? err.message : String(err)}`,
          });
        }
      }
      const failed = checks.filter((c) => c.passed === false);
      return {
        ...base,
        passed: run.ok && failed.length === 0,
        reason: failed.length
          ? failed.map((c) => `${c.check}: ${c.explanation}`).join('; ')
          : run.ok
            ? null
            : 'an artifact failed',
        checks,
        duration_ms: Math.round(deps.now() - t0),
        input_tokens: inTokens,
        output_tokens: outTokens,
        estimated_cost: run.results.reduce((n, a) => n + (a.estimated_cost ?? 0), judgeCost),
      };
    }
  }
}
