import { createStore, type StoreApi } from 'zustand/vanilla';
import { AppError, type AppErrorData } from '../../../electron/contract/errors.js';
import type {
  GetSettingsRes,
  ProviderIdName,
  SetProviderReq,
  TestConnectionRes,
} from '../../../electron/contract/settings.js';
import type { Client } from '../../bridge/client.js';

/** Provider settings: the host's view (never a key), and the outcome of the last actions. */
export interface ProvidersState {
  status: 'idle' | 'loading' | 'ready' | 'error';
  value: GetSettingsRes | null;
  error: AppErrorData | null;
  saving: boolean;
  /** What the last save did, for a short confirmation. */
  notice: string | null;
  /** A save that was refused (validation). */
  saveError: AppErrorData | null;
  test: { status: 'idle' | 'running' | 'done'; result: TestConnectionRes | null };
}

/** Provider settings events. */
export type ProvidersEvent =
  | { type: 'load/requested' }
  | { type: 'load/succeeded'; value: GetSettingsRes }
  | { type: 'load/failed'; error: AppErrorData }
  | { type: 'save/requested' }
  | { type: 'save/succeeded'; value: GetSettingsRes | null; notice: string }
  | { type: 'save/failed'; error: AppErrorData }
  | { type: 'test/requested' }
  | { type: 'test/finished'; result: TestConnectionRes };

/** Provider settings before loading. */
export function initialProvidersState(): ProvidersState {
  return {
    status: 'idle',
    value: null,
    error: null,
    saving: false,
    notice: null,
    saveError: null,
    test: { status: 'idle', result: null },
  };
}

/** Pure transitions of the provider settings. */
export function providersReducer(s: ProvidersState, e: ProvidersEvent): ProvidersState {
  switch (e.type) {
    case 'load/requested':
      return { ...s, status: s.value ? 'ready' : 'loading', error: null };
    case 'load/succeeded':
      return { ...s, status: 'ready', value: e.value, error: null };
    case 'load/failed':
      return { ...s, status: 'error', error: e.error };
    case 'save/requested':
      return { ...s, saving: true, notice: null, saveError: null };
    case 'save/succeeded':
      // A changed setting makes an earlier test result stale.
      return {
        ...s,
        saving: false,
        value: e.value ?? s.value,
        notice: e.notice,
        test: { status: 'idle', result: null },
      };
    case 'save/failed':
      return { ...s, saving: false, saveError: e.error };
    case 'test/requested':
      return { ...s, test: { status: 'running', result: null } };
    case 'test/finished':
      return { ...s, test: { status: 'done', result: e.result } };
  }
}

/** Provider settings with their actions. */
export interface ProvidersStore extends ProvidersState {
  load(): Promise<void>;
  setProvider(req: SetProviderReq): Promise<boolean>;
  setKey(provider: ProviderIdName, key: string): Promise<boolean>;
  testConnection(): Promise<void>;
  /** Accept (or stop accepting) in-process isolation for the Python sandbox. */
  setSandbox(allowInProcessIsolation: boolean): Promise<boolean>;
}

const toErrorData = (e: unknown): AppErrorData =>
  e instanceof AppError ? e.toData() : { code: 'INTERNAL', message: String(e) };

/** Create the provider settings store. */
export function createProvidersStore(client: Client): StoreApi<ProvidersStore> {
  return createStore<ProvidersStore>()((set, get) => {
    const dispatch = (e: ProvidersEvent) => set((s) => providersReducer(s, e));
    const load = async () => {
      dispatch({ type: 'load/requested' });
      try {
        dispatch({ type: 'load/succeeded', value: await client.invoke('settings/get', {}) });
      } catch (e) {
        dispatch({ type: 'load/failed', error: toErrorData(e) });
      }
    };
    client.subscribe('settings/changed', () => {
      if (get().status !== 'idle') void load();
    });
    return {
      ...initialProvidersState(),
      load,
      async setProvider(req) {
        dispatch({ type: 'save/requested' });
        try {
          const value = await client.invoke('settings/set-provider', req);
          dispatch({ type: 'save/succeeded', value, notice: 'Provider saved.' });
          return true;
        } catch (e) {
          dispatch({ type: 'save/failed', error: toErrorData(e) });
          return false;
        }
      },
      async setKey(provider, key) {
        dispatch({ type: 'save/requested' });
        try {
          await client.invoke('settings/set-key', { provider, key });
          const value = await client.invoke('settings/get', {});
          dispatch({ type: 'save/succeeded', value, notice: key ? 'Key saved.' : 'Key removed.' });
          return true;
        } catch (e) {
          dispatch({ type: 'save/failed', error: toErrorData(e) });
          return false;
        }
      },
      async setSandbox(allow) {
        dispatch({ type: 'save/requested' });
        try {
          const value = await client.invoke('settings/set-sandbox', { allow_in_process_isolation: allow });
          dispatch({
            type: 'save/succeeded',
            value,
            notice: allow
              ? 'Code will run with in-process isolation only.'
              : 'In-process isolation is no longer accepted.',
          });
          return true;
        } catch (e) {
          dispatch({ type: 'save/failed', error: toErrorData(e) });
          return false;
        }
      },
      async testConnection() {
        dispatch({ type: 'test/requested' });
        try {
          dispatch({ type: 'test/finished', result: await client.invoke('settings/test-connection', {}) });
        } catch (e) {
          const error = toErrorData(e);
          dispatch({
            type: 'test/finished',
            result: { ok: false, provider: null, model: null, took_ms: 0, reply: null, error },
          });
        }
      },
    };
  });
}
