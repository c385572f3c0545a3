/**
 * The design's "version upgrade": a `dspy_module`'s state blob records the DSPy version
 * that wrote it (`metadata.dependency_versions.dspy`, as DSPy's own save does). When the sidecar
 * reports another DSPy version, every such module is optimized again on its skill's evals, one at
 * a time, as a cancellable background task; what cannot be re-optimized is skipped with a reason.
 */
import type { CallContext } from '../contract/channels.js';
import { isAppError } from '../contract/errors.js';
import type { OptimizeSkillReq, OptimizeSkillRes, SkillScope as Scope } from '../contract/skills.js';
import { evalsSplit } from '../evals/index.js';
import { parseDspyModuleContent } from '../sidecar-client/index.js';
import { readSkillEvals, type SkillCatalog } from '../skills/index.js';

/** A module whose state was written by another DSPy version. */
export interface StaleDspyModule {
  name: string;
  scope: Scope;
  artifact: string;
  /** The DSPy version recorded in its state blob. */
  saved: string;
}

/** The DSPy version a state blob was saved with, or null (no blob, not JSON, not recorded). */
export function savedDspyVersion(blob: Uint8Array | null | undefined): string | null {
  if (!blob || blob.length === 0) return null;
  try {
    const state = JSON.parse(Buffer.from(blob).toString('utf8')) as {
      metadata?: { dependency_versions?: { dspy?: unknown } };
    };
    const v = state?.metadata?.dependency_versions?.dspy;
    return typeof v === 'string' && v ? v : null;
  } catch {
    return null;
  }
}

/** Every optimized `dspy_module` of the open stores whose state another DSPy version wrote. */
export function staleDspyModules(catalog: SkillCatalog, current: string): StaleDspyModule[] {
  const out: StaleDspyModule[] = [];
  for (const store of catalog.stores()) {
    const scope: Scope = store === catalog.workspace ? 'workspace' : 'account';
    for (const s of store.repo.listSkills()) {
      for (const a of store.repo.getArtifacts(s.id, ['dspy_module'])) {
        const saved = savedDspyVersion(a.state_blob);
        if (saved !== null && saved !== current) out.push({ name: s.name, scope, artifact: a.name, saved });
      }
    }
  }
  return out;
}

/** Why a module cannot be re-optimized from what its skill stores, or null when it can. */
function cannotReoptimize(catalog: SkillCatalog, m: StaleDspyModule): string | null {
  const skill = catalog.resolve(m.name, m.scope)?.skill;
  const artifact = skill?.artifacts.find((a) => a.kind === 'dspy_module' && a.name === m.artifact);
  if (!skill || !artifact) return 'it is gone';
  try {
    const content = parseDspyModuleContent(artifact.content, `${m.name} / ${m.artifact}`);
    evalsSplit(readSkillEvals(skill), content.signature);
    return null;
  } catch (e) {
    return isAppError(e) ? e.message : String(e);
  }
}

/** A task handle as the progress tracker gives it. */
export interface UpgradeTask {
  update(detail: string | null, fraction?: number | null): void;
  done(detail?: string | null): void;
  fail(detail: string): void;
}

/** What the re-optimization needs. */
export interface DspyUpgradeDeps {
  catalog: () => SkillCatalog;
  optimize: (req: OptimizeSkillReq, ctx: CallContext) => Promise<OptimizeSkillRes>;
  /** Starts the progress task (kind `sidecar`); `cancel` stops the run between and inside modules. */
  startTask: (label: string, opts: { cancel: () => void; detail?: string }) => UpgradeTask;
  /** Lets other work run between modules (default: one macrotask). */
  yieldNow?: () => Promise<void>;
}

/** What a run did. */
export interface DspyUpgradeReport {
  dspy: string;
  reoptimized: Array<StaleDspyModule & { version: string | null }>;
  skipped: Array<StaleDspyModule & { reason: string }>;
  cancelled: boolean;
}

const label = (m: StaleDspyModule) => `${m.name} / ${m.artifact}`;

/**
 * Re-optimize every module the DSPy version `current` did not write, one at a time, through the
 * `skills/optimize` handler with the skill's evals (labeled few-shot: a background run the user did
 * not start spends no model calls on bootstrapping; the validation evals run before and after, and
 * the result is saved as a new version). Returns null when nothing is stale (no task is shown).
 */
export async function reoptimizeForDspyVersion(
  deps: DspyUpgradeDeps,
  current: string,
): Promise<DspyUpgradeReport | null> {
  const stale = staleDspyModules(deps.catalog(), current);
  if (stale.length === 0) return null;
  const abort = new AbortController();
  const task = deps.startTask(`Re-optimizing DSPy modules for DSPy ${current}`, {
    cancel: () => abort.abort(),
    detail: `${stale.length} module${stale.length === 1 ? '' : 's'} saved with an older DSPy`,
  });
  const yieldNow = deps.yieldNow ?? (() => new Promise<void>((r) => setTimeout(r, 0)));
  const report: DspyUpgradeReport = { dspy: current, reoptimized: [], skipped: [], cancelled: false };
  for (const [i, m] of stale.entries()) {
    await yieldNow();
    if (abort.signal.aborted) break;
    task.update(`${label(m)} (${i + 1} of ${stale.length}, saved with DSPy ${m.saved})`, i / stale.length);
    const reason = cannotReoptimize(deps.catalog(), m);
    if (reason) {
      report.skipped.push({ ...m, reason });
      continue;
    }
    try {
      const r = await deps.optimize(
        { name: m.name, scope: m.scope, artifact: m.artifact, evals: true, optimizer: 'labeled_few_shot' },
        { transport: 'in-process', signal: abort.signal },
      );
      report.reoptimized.push({ ...m, version: r.optimized.evals?.version ?? null });
    } catch (e) {
      if (abort.signal.aborted || isAppError(e, 'CANCELLED')) break;
      report.skipped.push({ ...m, reason: isAppError(e) ? e.message : String(e) });
    }
  }
  report.cancelled = abort.signal.aborted;
  if (report.cancelled) return report; // The tracker already shows it cancelled.
  const parts = [`${report.reoptimized.length} re-optimized`];
  if (report.skipped.length)
    parts.push(`skipped ${report.skipped.map((s) => `${label(s)}: ${s.reason}`).join('; ')}`);
  task.done(parts.join(', '));
  return report;
}

/** What the app's re-optimization policy needs besides {@link DspyUpgradeDeps}. */
export interface DspyUpgradePolicyDeps extends DspyUpgradeDeps {
  log: (message: string) => void;
  error: (message: string, e: unknown) => void;
}

/**
 * The sidecar's start hook in the app: re-optimize the modules another DSPy version wrote, at most
 * once per DSPy version and set of open stores (a restart of the same sidecar does nothing).
 */
export function createDspyUpgradePolicy(
  deps: DspyUpgradePolicyDeps,
): (version: { dspy: string | null }) => void {
  const done = new Set<string>();
  return (version) => {
    const dspy = version.dspy;
    if (!dspy) return;
    const key = [
      dspy,
      ...deps
        .catalog()
        .stores()
        .map((s) => s.file),
    ].join('\n');
    if (done.has(key)) return;
    done.add(key);
    reoptimizeForDspyVersion(deps, dspy)
      .then((report) => {
        if (report) deps.log(`DSPy ${dspy}: ${report.reoptimized.length} module(s) re-optimized`);
      })
      .catch((e) => deps.error('re-optimizing DSPy modules failed', e));
  };
}
