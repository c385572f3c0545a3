// Whether a change to a skill lowers how well phase 1 picks it: its trigger evals measured against
// the catalog before and after the change. The change is tried on in-memory copies of the stores,
// so the measure runs the very index and scoring a chat turn uses, and nothing is written.
import type { SkillScope, TriggerRegressionView } from '../contract/skills.js';
import { readTriggerEvals, SkillCatalog, TRIGGER_EVALS_PATH, type TriggerEval } from '../skills/index.js';
import { cloneStoreInMemory, type Scope, type Skill, type SkillStore } from '../store/index.js';
import { explainMatch, PROMPT_MIN_SCORE } from './phase1.js';

/** How many skills phase 1 lists for a message (the chat's index and the trigger evals alike). */
export const TRIGGER_TOP_K = 5;

/** Phase 1's decision for one query and one skill: its rank, score, and whether it is listed. */
export function phase1Decision(
  catalog: SkillCatalog,
  query: string,
  skill: string,
  scope: Scope,
): {
  rank: number | null;
  score: number | null;
  listed: boolean;
  candidates: ReturnType<typeof explainMatch>['candidates'];
} {
  const ex = explainMatch(catalog, query, { limit: TRIGGER_TOP_K, skill, skill_scope: scope });
  const rank = ex.skill?.rank ?? null;
  const score = rank !== null && rank <= TRIGGER_TOP_K ? (ex.candidates[rank - 1]?.score ?? null) : null;
  const listed = rank !== null && rank <= TRIGGER_TOP_K && score !== null && score >= PROMPT_MIN_SCORE;
  return { rank, score, listed, candidates: ex.candidates.filter((c) => c.score >= PROMPT_MIN_SCORE) };
}

/** A skill's trigger evals, or none when it has none or its file does not parse (checked elsewhere). */
/** The part of a package the check looks at: whether it bundles trigger evals. */
export interface IncomingPackage {
  artifacts: ReadonlyArray<{ name: string; metadata?: Record<string, unknown> | null }>;
}

function hasTriggerEvals(pkg: IncomingPackage): boolean {
  // By its path alone: whatever kind the package gives the file, a check that runs for nothing is
  // only slower, never wrong.
  return pkg.artifacts.some((a) => a.metadata?.path === TRIGGER_EVALS_PATH || a.name === TRIGGER_EVALS_PATH);
}

function evalsOf(skill: Skill | null): TriggerEval[] {
  if (!skill) return [];
  try {
    return readTriggerEvals(skill);
  } catch {
    return [];
  }
}

function rates(evals: readonly TriggerEval[], fired: readonly boolean[]) {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  evals.forEach((e, i) => {
    if (e.should_trigger && fired[i]) tp++;
    else if (!e.should_trigger && fired[i]) fp++;
    else if (e.should_trigger) fn++;
  });
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    recall: tp + fn > 0 ? round(tp / (tp + fn)) : null,
    precision: tp + fp > 0 ? round(tp / (tp + fp)) : null,
  };
}

/**
 * Lower means worse: recall is compared when both exist; precision with "nothing fired" counted
 * as no false positive (1), so a change that makes a skill fire on one wrong query counts.
 */
function dropped(before: { recall: number | null; precision: number | null }, after: typeof before): boolean {
  if (before.recall !== null && after.recall !== null && after.recall < before.recall) return true;
  if (before.recall !== null && after.recall === null) return false;
  return (after.precision ?? 1) < (before.precision ?? 1);
}

/**
 * Try `apply` (the write a save, import or source update would make to the store of `scope`) on
 * in-memory copies of the catalog's stores, and report each named skill whose phase-1 recall or
 * precision on its trigger evals (the new version's, else the old one's) is lower after it than
 * before. Skills that are new, or have no trigger evals before or after, are never reported.
 */
export function triggerRegressions(
  catalog: SkillCatalog,
  scope: SkillScope,
  names: readonly string[],
  apply: (store: SkillStore) => void,
  incoming?: readonly IncomingPackage[],
): TriggerRegressionView[] {
  const target = catalog.store(scope);
  if (!target) return [];
  // Copies only when some changed skill exists and has trigger evals now or could have after.
  const existing = names.flatMap((n) => {
    const s = target.repo.getSkillByName(n);
    return s ? [s] : [];
  });
  if (existing.length === 0) return [];
  // Copying the stores costs their whole size (chats and traces included): skipped when neither
  // the installed skills nor the incoming packages have trigger evals, which is most saves.
  if (incoming && !existing.some((s) => evalsOf(s).length > 0) && !incoming.some(hasTriggerEvals)) return [];
  const copies = new Map(catalog.stores().map((s) => [s.scope, cloneStoreInMemory(s)]));
  try {
    const trial = new SkillCatalog(copies.get('account')!, copies.get('workspace') ?? null);
    const copy = copies.get(scope)!;
    const before = new Map(existing.map((s) => [s.name, { skill: s, evals: evalsOf(s) }] as const));
    apply(copy);
    const out: TriggerRegressionView[] = [];
    // "Before" is measured on the real catalog (unchanged, and only read), "after" on the copies.
    for (const [name, b] of before) {
      const after = copy.repo.getSkillByName(name);
      if (!after) continue;
      const afterEvals = evalsOf(after);
      const evals = afterEvals.length > 0 ? afterEvals : b.evals;
      if (evals.length === 0) continue;
      const firedBefore = evals.map((e) => phase1Decision(catalog, e.query, b.skill.name, scope).listed);
      const firedAfter = evals.map((e) => phase1Decision(trial, e.query, after.name, scope).listed);
      const rb = rates(evals, firedBefore);
      const ra = rates(evals, firedAfter);
      if (!dropped(rb, ra)) continue;
      out.push({
        name: after.name,
        scope,
        version_before: b.skill.version,
        version_after: after.version,
        recall_before: rb.recall,
        recall_after: ra.recall,
        precision_before: rb.precision,
        precision_after: ra.precision,
        failing: evals.flatMap((e, i) =>
          firedAfter[i] === e.should_trigger
            ? []
            : [
                {
                  query: e.query,
                  should_trigger: e.should_trigger,
                  newly: firedBefore[i] === e.should_trigger,
                },
              ],
        ),
      });
    }
    return out;
  } finally {
    for (const c of copies.values()) c.close();
  }
}
