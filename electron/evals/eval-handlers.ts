import { explainMatch, phase1Decision, triggerRates } from '../activation/index.js';
import { toolFacts } from '../contract/builtin-tools.js';
import type { CallContext, EventHub, HandlersFor } from '../contract/channels.js';
import { AppError, type AppErrorData, isAppError } from '../contract/errors.js';
import { BUNDLED_FILE_KIND } from '../contract/kinds.js';
import type {
  EvalExpectationView,
  EvalResultView,
  EvalRunView,
  EvalSkillReq,
  EvalSkillRes,
  RunSkillReq,
  RunSkillRes,
  TriggerEvalQueryView,
  TriggerEvalReq,
  TriggerEvalRes,
  TriggerEvalSkillView,
} from '../contract/skills.js';
import { BUILTIN_PRICES, estimateCost, type Llm, type PriceTable } from '../llm/index.js';
import { createRunRegistry } from '../progress/index.js';
import {
  SkillCatalog as Catalog,
  EVALS_PATH,
  type EvalRunOrigin,
  evalContext,
  evalRunHistory,
  loadSkillPrompts,
  readSkillEvals,
  readTriggerEvals,
  recordEvalRun,
  resolveOrThrow,
  type SkillCatalog,
  type SkillEval,
  type SkillPrompts,
  type TriggerEval,
} from '../skills/index.js';
import { assertPinned } from '../sources/index.js';
import { cloneStoreInMemory, type Db, type Scope, type Skill, skillNameKey } from '../store/index.js';
import { PromptEngine } from '../templates/index.js';

/** What an output eval's turn is given: the prompt, the skill, and whether the model gets it. */
export interface EvalTurnInput {
  prompt: string;
  /** The catalog the turn reads skills from: a draft's in-memory copy, else the open one. */
  catalog?: SkillCatalog;
  skill: { name: string; scope: Scope };
  /** False for the baseline: the skill is hidden from the model. */
  with_skill: boolean;
  /** The eval's `files`, as a chat's attachments. */
  attachments: Array<{ name: string; text?: string; media_type?: string; data?: string }>;
  llm: Llm;
  signal?: AbortSignal;
}

/** What the turn produced: the final reply, the tool calls (the skill given up front has id `invoke_skill`). */
export interface EvalTurnOutput {
  text: string;
  input_tokens: number;
  output_tokens: number;
  estimated_cost: number | null;
  error: AppErrorData | null;
  calls: Array<{ id: string; name: string; args: unknown; ok: boolean; result: unknown }>;
  /** Files the scripts it ran wrote, read back from the script runner. */
  files: Array<{ path: string; media_type: string; size: number; data_base64: string }>;
}

/** What the eval slice needs. */
export interface SkillEvalHandlerDeps {
  catalog: () => SkillCatalog;
  run: (req: RunSkillReq, ctx: CallContext) => Promise<RunSkillRes>;
  llm: () => Llm | null;
  /** An output eval's turn with the model (the chat's); without it output evals run the artifacts. */
  turn?: (input: EvalTurnInput) => Promise<EvalTurnOutput>;
  now: () => number;
  /** Where `skills/eval-progressed` goes. */
  events?: Pick<EventHub, 'emit'>;
  /** Prices for a trigger eval's estimate before it asks the model (default: the built-in table). */
  prices?: () => PriceTable;
  /**
   * A draft package as the skill it stands for (validated as an import is, never saved): what
   * `draft` in `skills/eval` and `skills/trigger-eval` is turned into. Without it drafts are refused.
   */
  draft?: (
    catalog: SkillCatalog,
    name: string,
    scope: Scope | undefined,
    input: string | Record<string, unknown>,
  ) => { skill: Skill; scope: Scope };
}

/**
 * Run `fn` on a catalog in which the draft replaces the stored skill of its name (or is added):
 * in-memory copies of both stores, so phase 1, the turn's tools and the evals file all see the
 * draft, and nothing reaches the stores on disk. The copies are closed afterwards.
 */
export async function withDraftCatalog<T>(
  catalog: SkillCatalog,
  draft: { skill: Skill; scope: Scope },
  fn: (trial: SkillCatalog, skill: Skill) => Promise<T>,
): Promise<T> {
  const copies = new Map(catalog.stores().map((s) => [s.scope, cloneStoreInMemory(s)] as const));
  try {
    const copy = copies.get(draft.scope);
    if (!copy) throw new AppError('INVALID_INPUT', `the ${draft.scope} store is not open`);
    const { artifacts, ...meta } = draft.skill;
    copy.repo.transaction(() => {
      if (copy.repo.getSkill(meta.id)) {
        copy.repo.updateSkill(meta);
        copy.repo.replaceArtifacts(meta.id, artifacts);
      } else {
        copy.repo.createSkill(meta);
        for (const a of artifacts) copy.repo.addArtifact(a);
      }
    });
    const trial = new Catalog(copies.get('account')!, copies.get('workspace') ?? null);
    const skill = copy.repo.getSkill(meta.id);
    if (!skill) throw new AppError('INTERNAL', 'the draft could not be tried');
    return await fn(trial, skill);
  } finally {
    for (const c of copies.values()) c.close();
  }
}

/** The last remembered output/all eval run of a skill with this model, per eval (null: none). */
function lastEvalRun(db: Db, name: string, model: string | null): EvalSkillRes['previous'] {
  const row = db
    .prepare(
      `SELECT id, version, pass_rate, results, created_at FROM skill_eval_runs
        WHERE name_key = ? AND model = ? AND origin = 'eval' AND only != 'trigger' ORDER BY id DESC LIMIT 1`,
    )
    .get(skillNameKey(name), model ?? '') as
    | { id: number; version: string; pass_rate: number; results: string; created_at: string }
    | undefined;
  if (!row) return null;
  let results: Array<{ id?: unknown; passed?: unknown; graded?: unknown }>;
  try {
    results = JSON.parse(row.results);
  } catch {
    return null;
  }
  if (!Array.isArray(results)) return null;
  return {
    id: row.id,
    version: row.version,
    pass_rate: row.pass_rate,
    at: row.created_at,
    results: results.flatMap((r) =>
      r && (typeof r.id === 'string' || typeof r.id === 'number') && typeof r.passed === 'boolean'
        ? [
            {
              id: String(r.id),
              passed: r.passed,
              ...(typeof r.graded === 'boolean' ? { graded: r.graded } : {}),
            },
          ]
        : [],
    ),
  };
}

const DEFAULT_THRESHOLD = 0.8;
/** What a trigger eval may spend on the model unless told otherwise, in USD. */
const DEFAULT_TRIGGER_COST_CAP = 1;
/** The router answers with a skill's name: a few tokens. */
const ROUTE_MAX_OUTPUT_TOKENS = 60;
/** Named in errors: where a skill's trigger evals go. */
const TRIGGER_EVALS_FILE = 'evals/trigger-evals.json';

/** The last remembered trigger-eval run of a skill with this model, as rates (null: none). */
function lastTriggerRun(db: Db, name: string, model: string | null): TriggerEvalSkillView['previous'] {
  const row = db
    .prepare(
      `SELECT version, results, created_at FROM skill_eval_runs
        WHERE name_key = ? AND model = ? AND only = 'trigger' ORDER BY id DESC LIMIT 1`,
    )
    .get(skillNameKey(name), model ?? '') as
    | { version: string; results: string; created_at: string }
    | undefined;
  if (!row) return null;
  let results: Array<{ should_trigger?: unknown; phase1?: unknown; turn?: unknown }>;
  try {
    results = JSON.parse(row.results);
  } catch {
    return null;
  }
  // Runs of `skills eval --only trigger` carry no per-way decision; only this command's runs compare.
  const usable = results.filter(
    (r) => typeof r.should_trigger === 'boolean' && typeof r.phase1 === 'boolean',
  );
  if (usable.length === 0 || usable.length !== results.length) return null;
  const hasTurn = usable.every((r) => typeof r.turn === 'boolean');
  return {
    phase1: triggerRates(usable.map((r) => [r.should_trigger as boolean, r.phase1 as boolean])),
    turn: hasTurn ? triggerRates(usable.map((r) => [r.should_trigger as boolean, r.turn as boolean])) : null,
    version: row.version,
    at: row.created_at,
  };
}

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
  /**
   * Run output evals on the skill's artifacts instead of through the model: what
   * `skills optimize --evals` compares before and after (the DSPy module itself, not a chat turn).
   */
  direct?: boolean;
}

const MAX_REPLY_CHARS = 20_000;
const MAX_TOOL_RESULT_CHARS = 4_000;
const MAX_FILE_CHARS = 20_000;

/** A written file's text when it is text (valid UTF-8, no NUL), else null: checks read text files. */
function fileText(f: { data_base64: string; size: number }): string | null {
  if (f.size > 1_000_000) return null;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(f.data_base64, 'base64'));
    return text.includes('\u0000') ? null : text;
  } catch {
    return null;
  }
}

/** One check of an output eval: a deterministic one, or a statement the judge model grades. */
type Check =
  | { kind: 'contains' | 'not_contains'; text: string; value: string }
  | { kind: 'statement'; text: string };

/** An output eval's checks: its `assertions` (strings and contains checks) and its `expectations`. */
export function checksOf(e: SkillEval): Check[] {
  const checks: Check[] = [];
  for (const a of e.assertions ?? []) {
    if (typeof a === 'string') checks.push({ kind: 'statement', text: a });
    else
      checks.push({
        kind: a.type,
        value: a.value,
        text:
          a.name ??
          `${a.type === 'contains' ? 'contains' : 'does not contain'} ${JSON.stringify(a.value).slice(0, 80)}`,
      });
  }
  for (const x of e.expectations ?? []) checks.push({ kind: 'statement', text: x });
  return checks;
}

/**
 * Refuse evals that cannot fail: an output eval with no assertion and no expectation would pass
 * whatever the model answered.
 */
export function checkEvalsHaveChecks(skill: string, evals: readonly SkillEval[]): void {
  const empty = evals.filter((e) => e.should_trigger === undefined && checksOf(e).length === 0);
  if (empty.length === 0) return;
  const ids = empty.map((e) => String(e.id));
  throw new AppError(
    'INVALID_INPUT',
    `${EVALS_PATH} of "${skill}": ${ids.length === 1 ? `eval ${ids[0]} has` : `evals ${ids.join(', ')} have`} no checks, so ${ids.length === 1 ? 'it' : 'they'} could never fail: give each output eval "expectations" (statements the judge model grades, e.g. "The reply names the contradiction") or "assertions" ({"type": "contains", "value": "…"}); nothing was run`,
    { ids },
  );
}

/** The eval's `files` (paths in the skill's folder) as a chat's attachments; a missing one is an error. */
function evalAttachments(skill: Skill, e: SkillEval): EvalTurnInput['attachments'] {
  return (e.files ?? []).map((path) => {
    const clean = path.replace(/^\.\//, '');
    const a = skill.artifacts.find(
      (x) => x.kind === BUNDLED_FILE_KIND && (x.metadata?.path === clean || x.name === clean),
    );
    if (!a) {
      throw new AppError(
        'INVALID_INPUT',
        `${EVALS_PATH} of "${skill.name}": eval ${e.id} names the file ${path}, which the skill does not bundle: add it to the skill's folder (e.g. evals/files/) and import it again`,
        { id: String(e.id), file: path },
      );
    }
    const name = clean.split('/').pop() ?? clean;
    const mediaType = typeof a.metadata?.media_type === 'string' ? a.metadata.media_type : undefined;
    if (a.metadata?.encoding === 'base64') {
      // Images reach models that read them; other binary files are named, as a chat cannot attach them.
      if (mediaType?.startsWith('image/')) return { name, media_type: mediaType, data: a.content };
      return {
        name,
        text: `[${clean}: a binary file (${mediaType ?? 'unknown type'}) the chat cannot attach]`,
      };
    }
    return { name, text: a.content, ...(mediaType ? { media_type: mediaType } : {}) };
  });
}

/**
 * What a run produced, as the checks see it: the final reply, then the result of each tool the
 * model called for work (the skill's own text — the read given up front, reads and searches of the
 * catalog — is left out: a check must not pass on the instructions themselves).
 */
function producedOutput(out: EvalTurnOutput): string {
  const work = out.calls.filter((c) => c.id !== 'invoke_skill' && !toolFacts(c.name)?.read_only);
  const parts = [out.text];
  for (const c of work) {
    const result = typeof c.result === 'string' ? c.result : JSON.stringify(c.result ?? null);
    parts.push(`[tool ${c.name}${c.ok ? '' : ' failed'}] ${result.slice(0, MAX_TOOL_RESULT_CHARS)}`);
  }
  for (const f of out.files) {
    const text = fileText(f);
    parts.push(
      text === null
        ? `[file ${f.path}: ${f.media_type}, ${f.size} bytes]`
        : `[file ${f.path}]\n${text.slice(0, MAX_FILE_CHARS)}`,
    );
  }
  return parts.filter(Boolean).join('\n\n');
}

/** The eval slice and the runner behind it (`skills/optimize --evals` runs it before and after). */
export function createSkillEvals(deps: SkillEvalHandlerDeps) {
  const runs = createRunRegistry();
  const handlers = {
    'skills/eval': async (req, outer) => {
      const run = runs.start(req.run_id, outer.signal);
      try {
        return await evaluate(req, { ...outer, signal: run.signal });
      } finally {
        run.done();
      }
    },

    'skills/cancel-eval': (req) => runs.cancel(req.run_id),

    'skills/eval-history': (req) => {
      const catalog = deps.catalog();
      const { skill, scope } = resolveOrThrow(catalog, req.name, req.scope);
      const store = catalog.store(scope)!;
      return { name: skill.name, scope, ...evalRunHistory(store.db, skill.name, req.limit) };
    },

    'skills/trigger-eval': (req, ctx) => triggerEvaluate(req, ctx),
  } satisfies Pick<
    HandlersFor<'skills'>,
    'skills/eval' | 'skills/cancel-eval' | 'skills/eval-history' | 'skills/trigger-eval'
  >;
  return { handlers, evaluate };

  /**
   * Trigger evals of several skills: phase 1 alone decides first (deterministic, no model), then,
   * when asked and a model is configured, the model is asked for each query phase 1 listed the
   * skill for — after the estimated cost of those calls is checked against the cap.
   */
  async function triggerEvaluate(req: TriggerEvalReq, ctx: CallContext): Promise<TriggerEvalRes> {
    const started = deps.now();
    const open = deps.catalog();
    if (req.draft !== undefined) {
      if (!deps.draft) throw new AppError('INVALID_INPUT', 'drafts cannot be measured here');
      const own = typeof req.draft === 'object' && typeof req.draft.name === 'string' ? req.draft.name : null;
      const name = req.names && req.names.length > 0 ? req.names[0] : own;
      if (!name || (req.names && req.names.length > 1)) {
        throw new AppError('INVALID_INPUT', 'with a draft, name only the draft (names: [its name])');
      }
      const draft = deps.draft(open, name, req.scope, req.draft);
      return withDraftCatalog(open, draft, (trial, skill) => {
        const evals = readTriggerEvals(skill);
        const skipped: TriggerEvalRes['skipped'] =
          evals.length === 0
            ? [
                {
                  name: skill.name,
                  reason: `no trigger evals: add ${TRIGGER_EVALS_FILE} (a list of {"query", "should_trigger"}) to the skill's folder`,
                },
              ]
            : [];
        const picked = evals.length > 0 ? [{ skill, scope: draft.scope, evals }] : [];
        return measureTriggers(trial, picked, skipped, req, ctx, started, true);
      });
    }
    const catalog = open;
    const skipped: TriggerEvalRes['skipped'] = [];
    const picked: Array<{ skill: Skill; scope: Scope; evals: TriggerEval[] }> = [];
    if (req.names && req.names.length > 0) {
      for (const n of req.names) {
        const { skill, scope } = resolveOrThrow(catalog, n, req.scope);
        assertPinned(catalog.store(scope), skill, scope);
        const evals = readTriggerEvals(skill);
        if (evals.length === 0)
          skipped.push({
            name: skill.name,
            reason: `no trigger evals: add ${TRIGGER_EVALS_FILE} (a list of {"query", "should_trigger"}) to the skill's folder`,
          });
        else picked.push({ skill, scope, evals });
      }
    } else {
      for (const entry of catalog.listAll()) {
        if (req.scope && entry.scope !== req.scope) continue;
        const found = catalog.resolve(entry.name, entry.scope);
        if (!found) continue;
        let evals: TriggerEval[];
        try {
          evals = readTriggerEvals(found.skill);
        } catch (e) {
          skipped.push({ name: entry.name, reason: isAppError(e) ? e.message : String(e) });
          continue;
        }
        if (evals.length > 0) picked.push({ skill: found.skill, scope: entry.scope, evals });
      }
    }
    return measureTriggers(catalog, picked, skipped, req, ctx, started, false);
  }

  /** Phase 1, then (when asked) the model, for the picked skills' trigger evals; a draft's run is not remembered. */
  async function measureTriggers(
    catalog: SkillCatalog,
    picked: Array<{ skill: Skill; scope: Scope; evals: TriggerEval[] }>,
    skipped: TriggerEvalRes['skipped'],
    req: TriggerEvalReq,
    ctx: CallContext,
    started: number,
    isDraft: boolean,
  ): Promise<TriggerEvalRes> {
    // Phase 1 for every query first: it is free, and it decides which queries reach the model.
    const phase1 = picked.map((p) =>
      p.evals.map((e) => phase1Decision(catalog, e.query, p.skill.name, p.scope)),
    );
    const llm = req.with_model ? deps.llm() : null;
    if (req.with_model && !llm) {
      throw new AppError(
        'INVALID_INPUT',
        'with_model needs a configured model: pass --provider and --model (key in the environment), or set one up with `skilldesk providers`',
      );
    }
    const prompts = llm ? loadEvalPrompts(catalog) : null;
    let estimate: TriggerEvalRes['estimate'] = null;
    if (llm && prompts) {
      let calls = 0;
      let inputTokens = 0;
      for (const [i, p] of picked.entries()) {
        for (const [j, e] of p.evals.entries()) {
          const r = phase1[i]![j]!;
          if (!r.listed) continue;
          calls++;
          const skills = r.candidates.map((c) => {
            const s = catalog.resolve(c.name, c.scope)?.skill;
            return { name: c.name, description: s?.description ?? '', when: s?.when ?? '' };
          });
          const text =
            render(prompts, 'Route System', {}) + render(prompts, 'Route', { skills, message: e.query });
          // About four characters a token in English; a rough bound is what a cap needs.
          inputTokens += Math.ceil(text.length / 4);
        }
      }
      const outputTokens = calls * ROUTE_MAX_OUTPUT_TOKENS;
      const cost = estimateCost(
        llm.provider,
        llm.model,
        { input_tokens: inputTokens, output_tokens: outputTokens },
        deps.prices?.() ?? BUILTIN_PRICES,
      );
      estimate = { calls, input_tokens: inputTokens, output_tokens: outputTokens, cost };
      const cap = req.max_cost ?? DEFAULT_TRIGGER_COST_CAP;
      if (cost !== null && cost > cap) {
        throw new AppError(
          'INVALID_INPUT',
          `asking ${llm.provider}:${llm.model} about ${calls} queries would cost about $${cost.toFixed(4)}, above the cap of $${cap.toFixed(2)}: raise it with --max-cost or name fewer skills; nothing was sent`,
          { estimated_cost: cost, max_cost: cap, calls },
        );
      }
    }
    const model = llm ? `${llm.provider}:${llm.model}` : null;
    let inputTokens = 0;
    let outputTokens = 0;
    let spent = 0;
    const skills: TriggerEvalSkillView[] = [];
    for (const [i, p] of picked.entries()) {
      const results: TriggerEvalQueryView[] = [];
      for (const [j, e] of p.evals.entries()) {
        if (ctx.signal?.aborted) throw new AppError('CANCELLED', 'the trigger evals were cancelled');
        const r = phase1[i]![j]!;
        let chose: boolean | null = null;
        let choice: string | null = null;
        if (llm && prompts && r.listed) {
          const m = await modelChoice(llm, prompts, catalog, e.query, r.candidates, ctx.signal);
          choice = m.choice;
          chose = m.choice !== null && m.choice.toLowerCase() === p.skill.name.toLowerCase();
          inputTokens += m.usage.input_tokens;
          outputTokens += m.usage.output_tokens;
          spent += m.cost;
        }
        const turn = llm ? r.listed && chose === true : null;
        const fired = turn ?? r.listed;
        results.push({
          id: e.id,
          query: e.query,
          should_trigger: e.should_trigger,
          source: e.source,
          rank: r.rank,
          score: r.score === null ? null : Math.round(r.score * 1000) / 1000,
          phase1: r.listed,
          model_chose: chose,
          model_choice: choice,
          turn,
          passed: fired === e.should_trigger,
        });
      }
      const store = catalog.store(p.scope);
      const previous = store ? lastTriggerRun(store.db, p.skill.name, model) : null;
      const view: TriggerEvalSkillView = {
        name: p.skill.name,
        scope: p.scope,
        version: p.skill.version,
        total: results.length,
        positives: results.filter((r) => r.should_trigger).length,
        negatives: results.filter((r) => !r.should_trigger).length,
        phase1: triggerRates(results.map((r) => [r.should_trigger, r.phase1])),
        turn: llm ? triggerRates(results.map((r) => [r.should_trigger, r.turn === true])) : null,
        previous,
        results,
      };
      skills.push(view);
      if (!isDraft && req.record !== false && store) {
        const passed = results.filter((r) => r.passed).length;
        recordEvalRun(store.db, {
          name: p.skill.name,
          version: p.skill.version,
          model,
          only: 'trigger',
          total: results.length,
          passed,
          pass_rate: Math.round((passed / results.length) * 1000) / 1000,
          threshold: DEFAULT_THRESHOLD,
          results: results.map((r) => ({
            id: r.id,
            kind: 'trigger' as const,
            prompt: r.query,
            should_trigger: r.should_trigger,
            rank: r.rank,
            model_chose: r.model_chose,
            model_choice: r.model_choice,
            passed: r.passed,
            reason: null,
            checks: [],
            duration_ms: 0,
            input_tokens: 0,
            output_tokens: 0,
            estimated_cost: 0,
            // What `previous` reads back: the decision of each way, beside the eval's verdict.
            phase1: r.phase1,
            turn: r.turn,
          })),
          duration_ms: 0,
          origin: 'eval',
        });
      }
    }
    return {
      model,
      estimate,
      skills,
      skipped,
      duration_ms: Math.round(deps.now() - started),
      input_tokens: inputTokens,
      output_tokens: outputTokens,
      estimated_cost: Math.round(spent * 1e6) / 1e6,
    };
  }

  async function evaluate(
    req: EvalSkillReq,
    ctx: CallContext,
    opts: EvalRunOptions = {},
  ): Promise<EvalSkillRes> {
    const started = deps.now();
    const open = deps.catalog();
    if (req.draft !== undefined) {
      if (!deps.draft) throw new AppError('INVALID_INPUT', 'drafts cannot be evaluated here');
      const draft = deps.draft(open, req.name, req.scope, req.draft);
      return withDraftCatalog(open, draft, (trial, skill) =>
        evaluateOn(trial, skill, draft.scope, req, ctx, opts, started),
      );
    }
    const { skill, scope } = resolveOrThrow(open, req.name, req.scope);
    // A skill changed since it was accepted from its source is not run, read or graded unasked.
    assertPinned(open.store(scope), skill, scope);
    return evaluateOn(open, skill, scope, req, ctx, opts, started);
  }

  async function evaluateOn(
    catalog: SkillCatalog,
    skill: Skill,
    scope: Scope,
    req: EvalSkillReq,
    ctx: CallContext,
    opts: EvalRunOptions,
    started: number,
  ): Promise<EvalSkillRes> {
    const isDraft = req.draft !== undefined;
    const file = readSkillEvals(skill);
    const llm = deps.llm();
    // Read once per run, so a run judges every eval with the same prompts.
    const prompts = llm ? loadEvalPrompts(catalog) : null;
    const threshold = req.threshold ?? file.threshold ?? DEFAULT_THRESHOLD;
    const direct = opts.direct === true || !deps.turn;
    const runsPer = direct ? 1 : (req.runs ?? 1);
    const baseline = !direct && req.baseline === true;
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
    if (!direct) {
      checkEvalsHaveChecks(skill.name, picked);
      // Every file is found before the model is asked anything.
      for (const e of picked) if (e.should_trigger === undefined) evalAttachments(skill, e);
    }
    const baselineRuns: Array<{ passed: boolean }> = [];
    for (const e of picked) {
      if (ctx.signal?.aborted) throw new AppError('CANCELLED', 'the eval run was cancelled');
      const r =
        e.should_trigger !== undefined
          ? await triggerEval(e)
          : direct
            ? await directOutputEval(e)
            : await modelOutputEval(e);
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
    const notGraded = results.filter((r) => r.graded === false).length;
    const model = llm ? `${llm.provider}:${llm.model}` : null;
    const durationMs = Math.round(deps.now() - started);
    let recorded: number | null = null;
    // The comparison reads the stores on disk (a draft's copy holds the same runs, but is closed
    // once the run ends); read before this run is recorded, so it is the one before.
    const diskStore = deps.catalog().store(scope);
    const previous = diskStore ? lastEvalRun(diskStore.db, skill.name, model) : null;
    // A draft's run is not remembered: its pass rate would stand for a version nobody saved.
    if (!isDraft && req.record !== false && results.length > 0) {
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
          // The files' bytes stay in the reply (the CLI writes them); the store keeps their names.
          results: results.map((r) =>
            r.runs
              ? {
                  ...r,
                  runs: r.runs.map((x) => ({ ...x, files: x.files.map(({ data_base64: _d, ...f }) => f) })),
                }
              : r,
          ),
          duration_ms: durationMs,
          origin: opts.origin ?? 'eval',
        });
    }
    const round = (x: number) => Math.round(x * 1000) / 1000;
    const baselinePassed = baselineRuns.filter((b) => b.passed).length;
    return {
      name: skill.name,
      scope,
      model,
      threshold,
      total: results.length,
      passed,
      pass_rate: round(passRate),
      ok: results.length > 0 && passRate >= threshold && notGraded === 0,
      not_graded: notGraded,
      runs_per_configuration: runsPer,
      baseline: baseline
        ? {
            total: baselineRuns.length,
            passed: baselinePassed,
            pass_rate: round(baselineRuns.length ? baselinePassed / baselineRuns.length : 0),
          }
        : null,
      results,
      duration_ms: durationMs,
      input_tokens: results.reduce((n, r) => n + r.input_tokens, 0),
      output_tokens: results.reduce((n, r) => n + r.output_tokens, 0),
      estimated_cost: results.reduce((n, r) => n + r.estimated_cost, 0),
      recorded,
      ran: isDraft ? 'draft' : 'saved',
      previous,
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

    /** Grade one output against the eval's checks; statements go to the judge model. */
    async function grade(e: SkillEval, output: string) {
      const expectations: EvalExpectationView[] = [];
      let inTokens = 0;
      let outTokens = 0;
      let cost = 0;
      for (const c of checksOf(e)) {
        if (c.kind !== 'statement') {
          const has = output.includes(c.value);
          const ok = c.kind === 'contains' ? has : !has;
          expectations.push({
            text: c.text,
            passed: ok,
            graded: true,
            evidence: `the output ${has ? 'contains' : 'does not contain'} ${JSON.stringify(c.value).slice(0, 80)}`,
          });
          continue;
        }
        if (!llm || !prompts) {
          expectations.push({ text: c.text, passed: false, graded: false, evidence: NO_JUDGE });
          continue;
        }
        try {
          const j = await judge(llm, prompts, output, c.text, e.expected_output, ctx.signal);
          inTokens += j.usage.input_tokens;
          outTokens += j.usage.output_tokens;
          cost += j.cost;
          expectations.push({ text: c.text, passed: j.passed, graded: true, evidence: j.explanation });
        } catch (err) {
          if (isAppError(err) && err.code === 'CANCELLED') throw err;
          expectations.push({
            text: c.text,
            passed: false,
            graded: false,
            evidence: `not graded: the judge failed: ${isAppError(err) ? err.message : String(err)}`,
          });
        }
      }
      return { expectations, input_tokens: inTokens, output_tokens: outTokens, cost };
    }

    /** Output evals as the issue defines them: the model answers the prompt, then the checks grade it. */
    async function modelOutputEval(e: SkillEval): Promise<EvalResultView> {
      const t0 = deps.now();
      const base = {
        id: String(e.id),
        ...(e.name ? { name: e.name } : {}),
        kind: 'output' as const,
        prompt: e.prompt,
      };
      if (!llm) {
        return {
          ...base,
          passed: false,
          graded: false,
          reason: `not graded: ${NO_MODEL}`,
          checks: checksOf(e).map((c) => ({ check: c.text, passed: null, explanation: NO_MODEL })),
          runs: [],
          duration_ms: Math.round(deps.now() - t0),
          input_tokens: 0,
          output_tokens: 0,
          estimated_cost: 0,
        };
      }
      const attachments = evalAttachments(skill, e);
      const configs: Array<EvalRunView['configuration']> = baseline
        ? ['with_skill', 'without_skill']
        : ['with_skill'];
      const runs: EvalRunView[] = [];
      let inTokens = 0;
      let outTokens = 0;
      let cost = 0;
      for (let n = 1; n <= runsPer; n++) {
        for (const configuration of configs) {
          if (ctx.signal?.aborted) throw new AppError('CANCELLED', 'the eval run was cancelled');
          const r0 = deps.now();
          const out = await deps.turn!({
            prompt: e.prompt,
            ...(isDraft ? { catalog } : {}),
            skill: { name: skill.name, scope },
            with_skill: configuration === 'with_skill',
            attachments,
            llm: llm,
            signal: ctx.signal,
          });
          if (out.error?.code === 'CANCELLED') throw new AppError('CANCELLED', 'the eval run was cancelled');
          const ran = deps.now() - r0;
          inTokens += out.input_tokens;
          outTokens += out.output_tokens;
          cost += out.estimated_cost ?? 0;
          const g0 = deps.now();
          const graded = out.error
            ? {
                expectations: checksOf(e).map((c) => ({
                  text: c.text,
                  passed: false,
                  graded: false,
                  evidence: `not graded: the run failed: ${out.error!.message}`,
                })),
                input_tokens: 0,
                output_tokens: 0,
                cost: 0,
              }
            : await grade(e, producedOutput(out));
          inTokens += graded.input_tokens;
          outTokens += graded.output_tokens;
          cost += graded.cost;
          const all = graded.expectations.every((x) => x.graded);
          runs.push({
            configuration,
            run_number: n,
            passed: all && graded.expectations.every((x) => x.passed),
            graded: all,
            expectations: graded.expectations,
            reply: out.text.slice(0, MAX_REPLY_CHARS),
            tool_calls: out.calls
              .filter((c) => c.id !== 'invoke_skill')
              .map((c) => ({ name: c.name, args: c.args, ok: c.ok, result: c.result })),
            files: out.files,
            error: out.error ? { code: out.error.code, message: out.error.message } : null,
            duration_ms: Math.round(ran),
            judge_duration_ms: Math.round(deps.now() - g0),
            input_tokens: out.input_tokens,
            output_tokens: out.output_tokens,
          });
        }
      }
      const own = runs.filter((r) => r.configuration === 'with_skill');
      for (const r of runs) if (r.configuration === 'without_skill') baselineRuns.push(r);
      const gradedAll = own.every((r) => r.graded);
      const passedAll = gradedAll && own.every((r) => r.passed);
      const first = own[0]!;
      const failing = own.flatMap((r) =>
        r.expectations
          .filter((x) => !x.passed)
          .map((x) => `${runsPer > 1 ? `run ${r.run_number}: ` : ''}${x.text}: ${x.evidence}`),
      );
      return {
        ...base,
        passed: passedAll,
        graded: gradedAll,
        reason: passedAll ? null : `${gradedAll ? '' : 'not graded: '}${[...new Set(failing)].join('; ')}`,
        checks: first.expectations.map((x) => ({
          check: x.text,
          passed: x.graded ? x.passed : null,
          explanation: x.evidence,
        })),
        runs,
        duration_ms: Math.round(deps.now() - t0),
        input_tokens: inTokens,
        output_tokens: outTokens,
        estimated_cost: cost,
      };
    }

    /** The artifacts run directly on the prompt (`skills optimize --evals` compares the module itself). */
    async function directOutputEval(e: SkillEval): Promise<EvalResultView> {
      const t0 = deps.now();
      const base = { id: String(e.id), kind: 'output' as const, prompt: e.prompt };
      let run: RunSkillRes;
      try {
        run = await deps.run(
          {
            name: skill.name,
            scope,
            context: evalContext(e),
            session_id: 'evals',
            ...(isDraft && req.draft !== undefined ? { package: req.draft } : {}),
          },
          ctx,
        );
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
      const g = await grade(e, output);
      for (const x of g.expectations)
        checks.push({ check: x.text, passed: x.graded ? x.passed : null, explanation: x.evidence });
      const failed = checks.filter((c) => c.passed === false);
      const graded = g.expectations.every((x) => x.graded);
      return {
        ...base,
        passed: run.ok && failed.length === 0 && graded,
        graded,
        reason: failed.length
          ? failed.map((c) => `${c.check}: ${c.explanation}`).join('; ')
          : !run.ok
            ? 'an artifact failed'
            : graded
              ? null
              : 'not graded: no model is configured to judge its statements',
        checks,
        duration_ms: Math.round(deps.now() - t0),
        input_tokens: run.results.reduce((n, a) => n + (a.input_tokens ?? 0), 0) + g.input_tokens,
        output_tokens: run.results.reduce((n, a) => n + (a.output_tokens ?? 0), 0) + g.output_tokens,
        estimated_cost: run.results.reduce((n, a) => n + (a.estimated_cost ?? 0), g.cost),
      };
    }
  }
}

const NO_MODEL =
  'no model is configured to run the prompt and judge the output: pass --provider and --model (the key in the environment, e.g. OPENAI_API_KEY), or choose a model in Settings → Providers';
const NO_JUDGE = 'not graded: no model is configured to judge this statement';
