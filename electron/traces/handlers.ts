import type { HandlersFor } from '../contract/channels.js';
import { AppError } from '../contract/errors.js';
import type { TraceView } from '../contract/traces.js';
import { type SkillStore, skillNameKey } from '../store/index.js';
import { type TraceRow, TraceStore } from './trace-store.js';

/** What the traces slice needs. */
export interface TracesHandlerDeps {
  /** The open catalog (the host's, which may be reopened): traces live in each of its stores. */
  catalog: { get(): { stores(): SkillStore[] } };
}

/** The `traces/*` slice: traces of every open store, with skill and artifact names resolved. */
export function createTracesHandlers(deps: TracesHandlerDeps) {
  // A trace row lives in the store the run wrote to, while its skill may live in the other one.
  const namer = (stores: SkillStore[]) => {
    const skills = new Map<string, string>();
    for (const s of stores)
      for (const k of s.repo.listSkills()) if (!skills.has(k.id)) skills.set(k.id, k.name);
    const artifactName = (id: string): string | null => {
      for (const s of stores) {
        const a = s.repo.getArtifact(id);
        if (a) return a.name;
      }
      return null;
    };
    return { skills, artifactName };
  };
  const toView = (t: TraceRow, store: SkillStore, names: ReturnType<typeof namer>): TraceView => ({
    id: t.id,
    session_id: t.session_id,
    skill_id: t.skill_id,
    skill_name: names.skills.get(t.skill_id) ?? null,
    artifact_id: t.artifact_id,
    artifact_name: names.artifactName(t.artifact_id),
    artifact_kind: t.artifact_kind,
    scope: store.scope,
    rendered_input: t.rendered_input,
    raw_output: t.raw_output,
    error: t.error,
    error_code: t.error_code,
    started_at: t.started_at,
    completed_at: t.completed_at,
    duration_ms: t.duration_ms,
    input_tokens: t.input_tokens,
    output_tokens: t.output_tokens,
    model_id: t.model_id,
    estimated_cost: t.estimated_cost,
    assertions_run: t.assertions_run,
    assertions_passed: t.assertions_passed,
  });

  return {
    'traces/list': (req) => {
      const stores = deps.catalog.get().stores();
      const names = namer(stores);
      const limit = req.limit ?? 100;
      const wanted = req.skill === undefined ? undefined : skillNameKey(req.skill);
      const skillIds = wanted
        ? [...names.skills].filter(([, n]) => skillNameKey(n) === wanted).map(([id]) => id)
        : [undefined];
      const rows: TraceView[] = [];
      for (const store of stores) {
        const traces = new TraceStore(store.db);
        for (const skill_id of skillIds) {
          for (const t of traces.list({ session_id: req.session_id, skill_id, limit })) {
            rows.push(toView(t, store, names));
          }
        }
      }
      rows.sort((a, b) => b.started_at.localeCompare(a.started_at));
      return { traces: rows.slice(0, limit) };
    },

    'traces/get': (req) => {
      const stores = deps.catalog.get().stores();
      for (const store of stores) {
        const t = new TraceStore(store.db).get(req.id);
        if (t) return { trace: toView(t, store, namer(stores)) };
      }
      throw new AppError(
        'NOT_FOUND',
        `There is no trace ${req.id}. Its store may have been closed or deleted.`,
        {
          id: req.id,
        },
      );
    },
  } satisfies HandlersFor<'traces'>;
}
