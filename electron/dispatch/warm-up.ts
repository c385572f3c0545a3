import { ARTIFACT_KINDS } from '../contract/kinds.js';
import { KINDS } from '../kinds/index.js';
import type { SkillCatalog } from '../skills/index.js';
import { TraceStore } from '../traces/index.js';

/** Kinds whose runs need the Python sandbox (their module says so). */
const SANDBOX_KINDS = ARTIFACT_KINDS.filter((k) => KINDS[k].runs_in === 'sandbox');

/** The sandbox warm-up's lifecycle hooks, called by the parts that see the moments. */
export interface SandboxWarmup {
  /** A workspace session opened: start the sandbox a moment later, for someone who runs Python. */
  opened(): void;
  /** A message matched these skills: a Python one among the best starts the sandbox now. */
  matched(matches: ReadonlyArray<{ name: string; scope: 'account' | 'workspace' }>): void;
  dispose(): void;
}

/** What the warm-up needs. */
export interface SandboxWarmupDeps {
  /** How long after opening (null: never in the background, nor on a match). */
  afterMs: number | null;
  catalog: () => SkillCatalog;
  /** Start the sandbox pool in the background. */
  warm: () => void;
  log: (line: string) => void;
}

/**
 * The desktop app starts the Python sandbox a moment after a workspace opens (the window drawn
 * first), so the first code run finds a warm worker instead of paying the ~1.5 s cold start — only
 * for someone who runs Python skills (a sandbox-kind trace in an open store in the last 30 days):
 * the warm sandbox holds about 240 MB nobody else should pay for. A draft whose best matches include
 * a Python skill starts it while its author is still typing, also for a first Python skill.
 */
export function createSandboxWarmup(deps: SandboxWarmupDeps): SandboxWarmup {
  let timer: NodeJS.Timeout | null = null;
  let disposed = false;
  const ranPythonRecently = () => {
    const since = new Date(Date.now() - 30 * 86_400_000).toISOString();
    return deps
      .catalog()
      .stores()
      .some((s) =>
        SANDBOX_KINDS.some(
          (kind) => new TraceStore(s.db).list({ artifact_kind: kind, since, limit: 1 }).length > 0,
        ),
      );
  };
  const runsPython = (m: { name: string; scope: 'account' | 'workspace' }) => {
    const store = deps.catalog().store(m.scope);
    const skill = store?.repo.getSkillByName(m.name);
    return !!skill && store!.repo.getArtifacts(skill.id, SANDBOX_KINDS).length > 0;
  };
  return {
    opened() {
      if (deps.afterMs === null || disposed) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        if (disposed) return;
        try {
          if (ranPythonRecently()) deps.warm();
        } catch (e) {
          deps.log(`the Python sandbox did not start in the background: ${(e as Error)?.message ?? e}`);
        }
      }, deps.afterMs);
      timer.unref?.();
    },
    matched(matches) {
      if (deps.afterMs === null || disposed) return;
      try {
        if (matches.slice(0, 3).some(runsPython)) deps.warm();
      } catch (e) {
        deps.log(`the Python sandbox did not start ahead of a run: ${(e as Error)?.message ?? e}`);
      }
    },
    dispose() {
      disposed = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
