import { createStore, type StoreApi } from 'zustand/vanilla';
import type { AppErrorData } from '../../../electron/contract/errors.js';
import type { SkillScope } from '../../../electron/contract/skills.js';
import type { CheckResult, ListSourcesRes, UpdateResult } from '../../../electron/contract/sources.js';
import type { Client } from '../../bridge/client.js';

/** Settings → Sources: the sources with their last check, what is running, the last outcome. */
export interface SourcesState {
  list: ListSourcesRes | null;
  loadError: AppErrorData | null;
  /** Per source (`scope:id`): a check or an update running. */
  busy: Record<string, 'checking' | 'updating'>;
  /** Skills whose high findings the user ticked as accepted (`scope:id:name`). */
  riskAccepted: Record<string, true>;
  /** The last update's outcome or error per source. */
  outcome: Record<string, { result?: UpdateResult; error?: AppErrorData }>;
  /** Adding a source: running, or why it failed. */
  adding: boolean;
  addError: AppErrorData | null;
}

/** What changes the state. */
export type SourcesEvent =
  | { type: 'loaded'; value: ListSourcesRes }
  | { type: 'load/failed'; error: AppErrorData }
  | { type: 'busy'; key: string; what: 'checking' | 'updating' | null }
  | { type: 'checked'; key: string; result: CheckResult }
  | { type: 'updated'; key: string; result: UpdateResult }
  | { type: 'update/failed'; key: string; error: AppErrorData }
  | { type: 'risk'; key: string; accepted: boolean }
  | { type: 'background'; enabled: boolean }
  | { type: 'add'; state: 'running' | 'done' }
  | { type: 'add/failed'; error: AppErrorData };

export const sourceKey = (scope: SkillScope, id: string) => `${scope}:${id}`;

export function initialSourcesState(): SourcesState {
  return {
    list: null,
    loadError: null,
    busy: {},
    riskAccepted: {},
    outcome: {},
    adding: false,
    addError: null,
  };
}

/** The pure transitions of the store. */
export function sourcesReducer(s: SourcesState, e: SourcesEvent): SourcesState {
  switch (e.type) {
    case 'loaded':
      return { ...s, list: e.value, loadError: null };
    case 'load/failed':
      return { ...s, loadError: e.error };
    case 'busy': {
      const busy = { ...s.busy };
      if (e.what) busy[e.key] = e.what;
      else delete busy[e.key];
      return { ...s, busy };
    }
    case 'checked': {
      if (!s.list) return s;
      const sources = s.list.sources.map((x) =>
        sourceKey(x.source.scope, x.source.id) === e.key
          ? { source: e.result.source, last_check: e.result }
          : x,
      );
      return { ...s, list: { ...s.list, sources } };
    }
    case 'updated':
      return { ...s, outcome: { ...s.outcome, [e.key]: { result: e.result } } };
    case 'update/failed':
      return { ...s, outcome: { ...s.outcome, [e.key]: { error: e.error } } };
    case 'risk': {
      const riskAccepted = { ...s.riskAccepted };
      if (e.accepted) riskAccepted[e.key] = true;
      else delete riskAccepted[e.key];
      return { ...s, riskAccepted };
    }
    case 'background':
      return s.list ? { ...s, list: { ...s.list, background_checks: e.enabled } } : s;
    case 'add':
      return { ...s, adding: e.state === 'running', addError: null };
    case 'add/failed':
      return { ...s, adding: false, addError: e.error };
  }
}

/** The store with its actions. */
export interface SourcesStore extends SourcesState {
  load(): Promise<void>;
  check(scope: SkillScope, id: string): Promise<void>;
  /** Accept the named skills (or every added and changed one when `skills` is null). */
  accept(
    scope: SkillScope,
    id: string,
    skills: string[] | null,
    opts?: { acceptRegression?: boolean },
  ): Promise<void>;
  setRiskAccepted(scope: SkillScope, id: string, name: string, accepted: boolean): void;
  setBackground(enabled: boolean): Promise<void>;
  /** Subscribe to a source; true when it was added. */
  add(req: { url: string; scope: SkillScope; ref?: string }): Promise<boolean>;
  remove(scope: SkillScope, id: string): Promise<void>;
}

const asError = (e: unknown): AppErrorData =>
  e && typeof e === 'object' && 'code' in e && 'message' in e
    ? (e as AppErrorData)
    : { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e) };

/** Create the Sources store over a client. */
export function createSourcesStore(client: Client): StoreApi<SourcesStore> {
  return createStore<SourcesStore>((set, get) => {
    const dispatch = (e: SourcesEvent) => set((s) => sourcesReducer(s, e));
    return {
      ...initialSourcesState(),
      async load() {
        try {
          dispatch({ type: 'loaded', value: await client.invoke('sources/list', {}) });
        } catch (e) {
          dispatch({ type: 'load/failed', error: asError(e) });
        }
      },
      async check(scope, id) {
        const key = sourceKey(scope, id);
        dispatch({ type: 'busy', key, what: 'checking' });
        try {
          dispatch({ type: 'checked', key, result: await client.invoke('sources/check', { scope, id }) });
        } catch (e) {
          dispatch({ type: 'update/failed', key, error: asError(e) });
        } finally {
          dispatch({ type: 'busy', key, what: null });
        }
      },
      async accept(scope, id, skills, opts) {
        const key = sourceKey(scope, id);
        const last = get().list?.sources.find(
          (x) => sourceKey(x.source.scope, x.source.id) === key,
        )?.last_check;
        const chosen =
          skills ??
          (last?.skills ?? [])
            .filter(
              (s) =>
                s.status === 'added' || s.status === 'changed' || (s.tampered && s.status === 'unchanged'),
            )
            .map((s) => s.name);
        // Risk is accepted only for what the user ticked: all chosen risky skills, or none.
        const risky = (last?.skills ?? []).filter((s) => chosen.includes(s.name) && s.needs_risk_acceptance);
        const accept_risk = risky.length > 0 && risky.every((s) => get().riskAccepted[`${key}:${s.name}`]);
        dispatch({ type: 'busy', key, what: 'updating' });
        try {
          const result = await client.invoke('sources/update', {
            scope,
            id,
            skills: chosen,
            accept_risk,
            ...(opts?.acceptRegression ? { accept_regression: true } : {}),
          });
          dispatch({ type: 'updated', key, result });
          await get().load();
        } catch (e) {
          dispatch({ type: 'update/failed', key, error: asError(e) });
        } finally {
          dispatch({ type: 'busy', key, what: null });
        }
      },
      setRiskAccepted(scope, id, name, accepted) {
        dispatch({ type: 'risk', key: `${sourceKey(scope, id)}:${name}`, accepted });
      },
      async add(req) {
        dispatch({ type: 'add', state: 'running' });
        try {
          await client.invoke('sources/add', {
            url: req.url.trim(),
            scope: req.scope,
            ...(req.ref?.trim() ? { ref: req.ref.trim() } : {}),
          });
          dispatch({ type: 'add', state: 'done' });
          await get().load();
          return true;
        } catch (e) {
          dispatch({ type: 'add/failed', error: asError(e) });
          return false;
        }
      },
      async remove(scope, id) {
        const key = sourceKey(scope, id);
        try {
          await client.invoke('sources/remove', { scope, id });
          await get().load();
        } catch (e) {
          dispatch({ type: 'update/failed', key, error: asError(e) });
        }
      },
      async setBackground(enabled) {
        const r = await client.invoke('sources/set-background-checks', { enabled });
        dispatch({ type: 'background', enabled: r.background_checks });
      },
    };
  });
}
