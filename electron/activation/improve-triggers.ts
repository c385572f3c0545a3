// Descriptions that trigger: skill-creator's loop (propose a description from the failing trigger
// evals, measure it, keep the best) run on phase 1 itself. Each proposal is tried on in-memory
// copies of the stores, so it is measured by the very index and scoring a chat turn uses, against
// the real catalog's other skills, and nothing is written. A held-out third of the evals never
// reaches the model: it says whether the gain is real or only fitted to the evals it saw.
import type { SkillScope, TriggerRates } from '../contract/skills.js';
import { importPackages, SkillCatalog, skillToPackage, type TriggerEval } from '../skills/index.js';
import { cloneStoreInMemory, type Skill, type SkillStore } from '../store/index.js';
import { phase1Decision } from './trigger-regression.js';

/** What a proposal changes: the fields phase 1 reads to decide whether a skill fires. */
export interface TriggerFields {
  description: string;
  trigger_phrases: string[];
}

/** The model's part of the loop: a new description and phrases from what failed, or null to stop. */
export type ProposeTriggers = (input: {
  name: string;
  current: TriggerFields;
  /** Train evals phase 1 decides wrongly with `current`: should fire and does not, or the reverse. */
  missed: string[];
  wrongly: string[];
  /** Train evals it decides rightly, so the proposal keeps them. */
  kept: Array<{ query: string; should_trigger: boolean }>;
  round: number;
}) => Promise<TriggerFields | null>;

/** Recall and precision from `[should_trigger, fired]` pairs. */
export function triggerRates(pairs: ReadonlyArray<readonly [boolean, boolean]>): TriggerRates {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  for (const [should, fired] of pairs) {
    if (should && fired) tp++;
    else if (!should && fired) fp++;
    else if (should) fn++;
    else tn++;
  }
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    true_positives: tp,
    false_positives: fp,
    false_negatives: fn,
    true_negatives: tn,
    recall: tp + fn > 0 ? round(tp / (tp + fn)) : null,
    precision: tp + fp > 0 ? round(tp / (tp + fp)) : null,
  };
}

/** One number to rank proposals by: right decisions, with a missed trigger and a wrong one alike. */
function correct(r: TriggerRates): number {
  return r.true_positives + r.true_negatives;
}

/**
 * The evals split for the loop: every third one held out (deterministic, so a rerun compares
 * like with like), moved so that each part has a query that should fire when the evals have two.
 */
export function splitTriggerEvals(evals: readonly TriggerEval[]): {
  train: TriggerEval[];
  held_out: TriggerEval[];
} {
  const train: TriggerEval[] = [];
  const held: TriggerEval[] = [];
  for (const [i, e] of evals.entries()) (i % 3 === 2 ? held : train).push(e);
  const positives = evals.filter((e) => e.should_trigger).length;
  if (positives >= 2 && !train.some((e) => e.should_trigger)) {
    const i = held.findIndex((e) => e.should_trigger);
    train.push(...held.splice(i, 1));
  }
  if (positives >= 2 && !held.some((e) => e.should_trigger)) {
    const i = train.findIndex((e) => e.should_trigger);
    held.push(...train.splice(i, 1));
  }
  return { train, held_out: held };
}

/**
 * A place to try a skill's trigger fields: copies of the catalog's stores made once, each trial
 * written over the copy of the skill (the same import a save makes) and measured on a fresh
 * catalog of the copies. Close it when done.
 */
export class TriggerTrial {
  private readonly copies: Map<SkillScope, SkillStore>;

  constructor(
    private readonly catalog: SkillCatalog,
    private readonly scope: SkillScope,
    private readonly skill: Skill,
  ) {
    this.copies = new Map(catalog.stores().map((s) => [s.scope, cloneStoreInMemory(s)]));
  }

  /** Which of `evals` phase 1 lists the skill for, with the fields given (null: as stored). */
  fired(evals: readonly TriggerEval[], fields: TriggerFields | null): boolean[] {
    if (!fields)
      return evals.map((e) => phase1Decision(this.catalog, e.query, this.skill.name, this.scope).listed);
    const pkg = {
      ...skillToPackage(this.skill),
      description: fields.description,
      trigger_phrases: fields.trigger_phrases,
    };
    importPackages(this.copies.get(this.scope)!, [{ file: 'trigger-trial.json', pkg }], { force: true });
    const trial = new SkillCatalog(this.copies.get('account')!, this.copies.get('workspace') ?? null);
    return evals.map((e) => phase1Decision(trial, e.query, this.skill.name, this.scope).listed);
  }

  close(): void {
    for (const c of this.copies.values()) c.close();
  }
}

/** The loop's outcome: the rates as stored and with the best proposal, on both parts. */
export interface TriggerImprovement {
  train: number;
  held_out: number;
  before: { train: TriggerRates; held_out: TriggerRates };
  /** The proposal that decided the most train evals rightly, if one beat the stored fields. */
  best: (TriggerFields & { train: TriggerRates; held_out: TriggerRates }) | null;
  rounds: Array<TriggerFields & { train: TriggerRates }>;
  /**
   * `better`: the best proposal gains on train and on the held-out evals (or they were all right
   * and stay so); `not_confirmed`: it gains on train but the held-out evals it got wrong stay
   * wrong (fitted to what it saw); `held_out_worse`: it decides more held-out evals wrongly;
   * `no_better`: no proposal beat the stored fields on train (or there was nothing to fix).
   */
  verdict: 'better' | 'not_confirmed' | 'held_out_worse' | 'no_better';
}

function heldOutVerdict(
  before: TriggerRates,
  after: TriggerRates,
  total: number,
): TriggerImprovement['verdict'] {
  if (correct(after) < correct(before)) return 'held_out_worse';
  if (correct(after) > correct(before) || correct(before) === total) return 'better';
  return 'not_confirmed';
}

/**
 * Run the loop: measure the stored fields, then up to `rounds` times ask `propose` for fields
 * that fix the train evals phase 1 gets wrong, measure each, and keep the best. Stops early when
 * the train evals are all right or `propose` gives up.
 */
export async function improveTriggers(opts: {
  catalog: SkillCatalog;
  scope: SkillScope;
  skill: Skill;
  evals: readonly TriggerEval[];
  propose: ProposeTriggers;
  rounds: number;
  signal?: AbortSignal;
}): Promise<TriggerImprovement> {
  const { train, held_out } = splitTriggerEvals(opts.evals);
  const trial = new TriggerTrial(opts.catalog, opts.scope, opts.skill);
  try {
    const rate = (evals: readonly TriggerEval[], fired: readonly boolean[]) =>
      triggerRates(evals.map((e, i) => [e.should_trigger, fired[i]!] as const));
    const stored: TriggerFields = {
      description: opts.skill.description,
      trigger_phrases: opts.skill.trigger_phrases ?? [],
    };
    const trainFired = trial.fired(train, null);
    const before = { train: rate(train, trainFired), held_out: rate(held_out, trial.fired(held_out, null)) };
    const rounds: TriggerImprovement['rounds'] = [];
    let best: { fields: TriggerFields; train: TriggerRates } | null = null;
    let current = stored;
    let currentFired = trainFired;
    for (let round = 1; round <= opts.rounds; round++) {
      const wrong = train.filter((e, i) => currentFired[i] !== e.should_trigger);
      if (wrong.length === 0) break;
      if (opts.signal?.aborted) break;
      const next = await opts.propose({
        name: opts.skill.name,
        current,
        missed: wrong.filter((e) => e.should_trigger).map((e) => e.query),
        wrongly: wrong.filter((e) => !e.should_trigger).map((e) => e.query),
        kept: train
          .filter((e, i) => currentFired[i] === e.should_trigger)
          .map(({ query, should_trigger }) => ({
            query,
            should_trigger,
          })),
        round,
      });
      if (!next) break;
      const fired = trial.fired(train, next);
      const r = rate(train, fired);
      rounds.push({ ...next, train: r });
      if (correct(r) > correct(best?.train ?? before.train)) best = { fields: next, train: r };
      // The next round starts from this proposal when it is no worse than the best so far.
      if (correct(r) >= correct(best?.train ?? before.train)) {
        current = next;
        currentFired = fired;
      }
    }
    if (!best)
      return {
        train: train.length,
        held_out: held_out.length,
        before,
        best: null,
        rounds,
        verdict: 'no_better',
      };
    const heldOut = rate(held_out, trial.fired(held_out, best.fields));
    return {
      train: train.length,
      held_out: held_out.length,
      before,
      best: { ...best.fields, train: best.train, held_out: heldOut },
      rounds,
      verdict: heldOutVerdict(before.held_out, heldOut, held_out.length),
    };
  } finally {
    trial.close();
  }
}
