import type { HandlersFor } from '../contract/channels.js';
import { AppError } from '../contract/errors.js';
import type { TraceExample, TraceFilter, TraceStatus, TraceTotals, TraceView } from '../contract/traces.js';
import { type SkillStore, skillNameKey } from '../store/index.js';
import { type TraceQuery, type TraceRow, TraceStore } from './trace-store.js';

/** A filter date as an ISO instant: a bare date is its day's start (`since`) or the next day's (`until`). */
export function instant(date: string, edge: 'start' | 'end'): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(date)) {
    const d = new Date(`${date}T00:00:00.000Z`);
    if (edge === 'end') d.setUTCDate(d.getUTCDate() + 1);
    return d.toISOString();
  }
  const d = new Date(date);
  // `until` with a time is inclusive of that instant.
  return new Date(d.getTime() + (edge === 'end' ? 1 : 0)).toISOString();
}

/** What a trace ended as. */
export function traceStatus(t: Pick<TraceView, 'error' | 'error_code' | 'completed_at'>): TraceStatus {
  if (t.error !== null || t.error_code !== null) return 'error';
  return t.completed_at === null ? 'running' : 'ok';
}

/** A trace as one line of a DSPy dataset (`dspy.Example(**row).with_inputs("input")`). */
export function traceExample(t: TraceView): TraceExample {
  return {
    input: t.rendered_input ?? '',
    output: t.raw_output ?? '',
    skill: t.skill_name ?? t.skill_id,
    artifact: t.artifact_name ?? t.artifact_id,
    artifact_kind: t.artifact_kind,
    status: traceStatus(t),
    error: t.error,
    error_code: t.error_code,
    model: t.model_id,
    input_tokens: t.input_tokens,
    output_tokens: t.output_tokens,
    estimated_cost: t.estimated_cost,
    duration_ms: t.duration_ms,
    assertions_run: t.assertions_run,
    assertions_passed: t.assertions_passed,
    trace_id: t.id,
    session_id: t.session_id,
    started_at: t.started_at,
  };
}

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
    rendered_input_bytes: t.rendered_input_bytes ?? null,
    raw_output_bytes: t.raw_output_bytes ?? null,
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

  /** The store query of a filter (a skill name no skill has matches nothing). */
  const queryOf = (f: TraceFilter, names: ReturnType<typeof namer>): TraceQuery => {
    const wanted = f.skill === undefined ? undefined : skillNameKey(f.skill);
    return {
      session_id: f.session_id,
      skill_ids: wanted
        ? [...names.skills].filter(([, n]) => skillNameKey(n) === wanted).map(([id]) => id)
        : undefined,
      artifact_kind: f.artifact_kind,
      status: f.status,
      since: f.since === undefined ? undefined : instant(f.since, 'start'),
      before: f.until === undefined ? undefined : instant(f.until, 'end'),
    };
  };

  return {
    'traces/list': (req) => {
      const stores = deps.catalog.get().stores();
      const names = namer(stores);
      const limit = req.limit ?? 100;
      const q = { ...queryOf(req, names), limit };
      const rows: TraceView[] = [];
      const totals: TraceTotals = {
        count: 0,
        errors: 0,
        input_tokens: 0,
        output_tokens: 0,
        estimated_cost: 0,
        duration_ms: 0,
      };
      const sessions = new Set<string>();
      const skills = new Set<string>();
      const kinds = new Set<string>();
      for (const store of stores) {
        const traces = new TraceStore(store.db);
        for (const t of traces.list(q)) rows.push(toView(t, store, names));
        const sums = traces.totals(q);
        for (const k of Object.keys(totals) as Array<keyof TraceTotals>) totals[k] += sums[k];
        for (const v of traces.distinct('session_id')) sessions.add(v);
        for (const v of traces.distinct('skill_id')) skills.add(names.skills.get(v) ?? v);
        for (const v of traces.distinct('artifact_kind')) kinds.add(v);
      }
      rows.sort((a, b) => b.started_at.localeCompare(a.started_at));
      const sorted = (s: Set<string>) => [...s].sort((a, b) => a.localeCompare(b));
      return {
        traces: rows.slice(0, limit),
        totals,
        facets: { session_ids: sorted(sessions), skills: sorted(skills), artifact_kinds: sorted(kinds) },
      };
    },

    'traces/export': (req) => {
      const stores = deps.catalog.get().stores();
      const names = namer(stores);
      const q = { ...queryOf(req, names), limit: -1 };
      const rows: TraceView[] = [];
      for (const store of stores) {
        for (const t of new TraceStore(store.db).list(q, 'asc')) rows.push(toView(t, store, names));
      }
      rows.sort((a, b) => a.started_at.localeCompare(b.started_at));
      const jsonl = rows.map((t) => `${JSON.stringify(traceExample(t))}\n`).join('');
      return { jsonl, count: rows.length };
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
