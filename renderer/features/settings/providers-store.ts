import { createStore, type StoreApi } from 'zustand/vanilla';
import { AppError, type AppErrorData } from '../../../electron/contract/errors.js';
import { ANY_ENDPOINT_PROVIDER } from '../../../electron/contract/providers.js';
import type {
  ConfiguredProviderView,
  GetSettingsRes,
  LocalServerView,
  SaveProviderReq,
  SetProviderReq,
  TestConnectionRes,
} from '../../../electron/contract/settings.js';
import type { Client } from '../../bridge/client.js';

/** One provider's last connection test, with what the provider was like when it ran. */
export interface ProviderTest {
  status: 'running' | 'done';
  result: TestConnectionRes | null;
  /** {@link providerFingerprint} at the time of the test. */
  fingerprint: string;
}

/**
 * What a test outcome depends on: a test says nothing about a provider whose kind, base URL or
 * key has changed since, so its outcome is shown only while this stays the same.
 */
export function providerFingerprint(p: ConfiguredProviderView): string {
  return JSON.stringify([p.kind, p.base_url, p.has_key, p.source]);
}

/** The test outcome to show for `p` now, or null when there is none or it is stale. */
export function currentTest(
  tests: Record<string, ProviderTest>,
  p: ConfiguredProviderView,
): ProviderTest | null {
  const t = tests[p.id];
  return t && t.fingerprint === providerFingerprint(p) ? t : null;
}

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
  /** The last connection test of each provider, by id. */
  tests: Record<string, ProviderTest>;
  /** Providers whose model list is being read again. */
  refreshing: Record<string, boolean>;
  /** Model servers found on this machine (Ollama, LM Studio, llama.cpp), once looked for. */
  local: { status: 'idle' | 'looking' | 'done'; servers: LocalServerView[] };
}

/** Provider settings events. */
export type ProvidersEvent =
  | { type: 'load/requested' }
  | { type: 'load/succeeded'; value: GetSettingsRes }
  | { type: 'load/failed'; error: AppErrorData }
  | { type: 'save/requested' }
  | { type: 'save/succeeded'; value: GetSettingsRes | null; notice: string; provider?: string }
  | { type: 'save/failed'; error: AppErrorData }
  | { type: 'test/requested'; provider: string; fingerprint: string }
  | { type: 'test/finished'; provider: string; result: TestConnectionRes }
  | { type: 'refresh/changed'; provider: string; running: boolean }
  | { type: 'local/looking' }
  | { type: 'local/found'; servers: LocalServerView[] };

/** Provider settings before loading. */
export function initialProvidersState(): ProvidersState {
  return {
    status: 'idle',
    value: null,
    error: null,
    saving: false,
    notice: null,
    saveError: null,
    tests: {},
    refreshing: {},
    local: { status: 'idle', servers: [] },
  };
}

const without = <T>(m: Record<string, T>, k: string | undefined): Record<string, T> => {
  if (k === undefined || !(k in m)) return m;
  const { [k]: _gone, ...rest } = m;
  return rest;
};

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
      // A changed provider makes its earlier test outcome stale (another key may fail).
      return {
        ...s,
        saving: false,
        value: e.value ?? s.value,
        notice: e.notice,
        tests: without(s.tests, e.provider),
      };
    case 'save/failed':
      return { ...s, saving: false, saveError: e.error };
    case 'test/requested':
      return {
        ...s,
        tests: { ...s.tests, [e.provider]: { status: 'running', result: null, fingerprint: e.fingerprint } },
      };
    case 'test/finished': {
      const t = s.tests[e.provider];
      // A test overtaken by a change of that provider is dropped.
      if (!t) return s;
      return { ...s, tests: { ...s.tests, [e.provider]: { ...t, status: 'done', result: e.result } } };
    }
    case 'refresh/changed':
      return {
        ...s,
        refreshing: e.running ? { ...s.refreshing, [e.provider]: true } : without(s.refreshing, e.provider),
      };
    case 'local/looking':
      return { ...s, local: { ...s.local, status: 'looking' } };
    case 'local/found':
      return { ...s, local: { status: 'done', servers: e.servers } };
  }
}

/** Provider settings with their actions. */
export interface ProvidersStore extends ProvidersState {
  load(): Promise<void>;
  /** The one-provider form of older clients: a provider under its kind's id, made the default. */
  setProvider(req: SetProviderReq): Promise<boolean>;
  /** Add or change a provider; its id, or null when refused (`saveError` says why). */
  saveProvider(req: SaveProviderReq): Promise<string | null>;
  removeProvider(id: string): Promise<boolean>;
  setDefault(id: string, model?: string): Promise<boolean>;
  setKey(provider: string, key: string): Promise<boolean>;
  /** Read the provider's `/models` (the default provider's when none is given). */
  testConnection(provider?: string): Promise<void>;
  /** Read the provider's model list again. */
  refreshModels(provider: string): Promise<void>;
  /** Accept (or stop accepting) in-process isolation for the Python sandbox. */
  setSandbox(allowInProcessIsolation: boolean): Promise<boolean>;
  /** Name new chats automatically from their first exchange, or not. */
  setChatTitles(on: boolean): Promise<boolean>;
  /** The skill listing's budget, in percent of the model's context. */
  setListingBudget(percent: number): Promise<boolean>;
  /** The package index Install packages uses; empty for PyPI. */
  setPackageIndex(url: string): Promise<boolean>;
  /** Look for model servers on this machine (their `/models` on loopback). */
  findLocalServers(): Promise<void>;
  /** Set up a found server as a provider with `model`, the default of new chats. */
  useLocalServer(server: LocalServerView, model: string): Promise<string | null>;
  /** Make `model` (one its server lists) the provider's own model. */
  pickModel(provider: string, model: string): Promise<boolean>;
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
    /** Run a change that answers with the settings; says `notice` when it worked. */
    const change = async (
      run: () => Promise<GetSettingsRes>,
      notice: string,
      provider?: string,
    ): Promise<boolean> => {
      dispatch({ type: 'save/requested' });
      try {
        const value = await run();
        dispatch({ type: 'save/succeeded', value, notice, provider });
        return true;
      } catch (e) {
        dispatch({ type: 'save/failed', error: toErrorData(e) });
        return false;
      }
    };
    return {
      ...initialProvidersState(),
      load,
      setProvider: (req) =>
        change(() => client.invoke('settings/set-provider', req), 'Provider saved.', req.provider),
      async saveProvider(req) {
        let id: string | null = null;
        await change(
          async () => {
            const r = await client.invoke('settings/save-provider', req);
            id = r.id;
            return r.settings;
          },
          'Provider saved.',
          req.id,
        );
        return id;
      },
      removeProvider: (id) =>
        change(() => client.invoke('settings/remove-provider', { id }), 'Provider removed.', id),
      setDefault: (id, model) =>
        change(
          () => client.invoke('settings/set-default', { id, ...(model ? { model } : {}) }),
          'New chats use this provider now.',
        ),
      setKey: (provider, key) =>
        change(
          async () => {
            await client.invoke('settings/set-key', { provider, key });
            return client.invoke('settings/get', {});
          },
          key ? 'Key saved.' : 'Key removed.',
          provider,
        ),
      setSandbox: (allow) =>
        change(
          () => client.invoke('settings/set-sandbox', { allow_in_process_isolation: allow }),
          allow
            ? 'Code will run with in-process isolation only.'
            : 'In-process isolation is no longer accepted.',
        ),
      setPackageIndex: (url) =>
        change(
          () => client.invoke('settings/set-packages', { index_url: url.trim() }),
          url.trim() ? 'Packages will come from your index.' : 'Packages will come from PyPI.',
        ),
      setChatTitles: (on) =>
        change(
          () => client.invoke('settings/set-chat-titles', { chat_titles: on ? 'auto' : 'off' }),
          on
            ? 'New chats will be named from their first exchange.'
            : 'New chats keep their first message as title.',
        ),
      setListingBudget: (percent) =>
        change(
          () => client.invoke('settings/set-listing-budget', { percent }),
          `The skill listing may take ${percent}% of the model's context.`,
        ),
      async testConnection(provider) {
        const value = get().value;
        const id = provider ?? value?.chat?.provider;
        const p = value?.configured.find((x) => x.id === id);
        if (!id || !p) return;
        dispatch({ type: 'test/requested', provider: id, fingerprint: providerFingerprint(p) });
        let result: TestConnectionRes;
        try {
          result = await client.invoke('settings/test-connection', { provider: id });
        } catch (e) {
          result = {
            ok: false,
            provider: id,
            label: p.label,
            model: null,
            picked_model: null,
            base_url: null,
            took_ms: 0,
            model_count: 0,
            model_listed: false,
            error: toErrorData(e),
          };
        }
        dispatch({ type: 'test/finished', provider: id, result });
        // A test that answered saved the provider's model list.
        await load();
      },
      async findLocalServers() {
        if (get().local.status === 'looking') return;
        dispatch({ type: 'local/looking' });
        try {
          const r = await client.invoke('settings/find-local-servers', {});
          dispatch({ type: 'local/found', servers: r.servers });
        } catch {
          // Nothing found is the same as nothing answering: the form is still there.
          dispatch({ type: 'local/found', servers: [] });
        }
      },
      async useLocalServer(server, model) {
        const id = await get().saveProvider({
          ...(server.configured_id ? { id: server.configured_id } : {}),
          kind: ANY_ENDPOINT_PROVIDER,
          label: server.name,
          base_url: server.base_url,
          model,
          make_default: true,
        });
        if (id) {
          set((s) => ({
            notice: `${server.name} (${model}) answers new chats now.`,
            local: {
              ...s.local,
              servers: s.local.servers.map((x) => (x === server ? { ...x, configured_id: id } : x)),
            },
          }));
        }
        return id;
      },
      pickModel: (provider, model) =>
        change(
          async () => {
            const p = get().value?.configured.find((x) => x.id === provider);
            if (!p) throw new AppError('NOT_FOUND', `No provider "${provider}" is set up.`);
            const r = await client.invoke('settings/save-provider', {
              id: p.id,
              kind: p.kind,
              label: p.label,
              model,
              ...(p.base_url ? { base_url: p.base_url } : {}),
            });
            return r.settings;
          },
          `${model} is its model now.`,
          provider,
        ),
      async refreshModels(provider) {
        dispatch({ type: 'refresh/changed', provider, running: true });
        try {
          const r = await client.invoke('settings/list-models', { provider, refresh: true });
          dispatch({
            type: 'save/succeeded',
            value: null,
            notice: r.warning ?? `${r.models.length} models read.`,
          });
        } catch (e) {
          dispatch({ type: 'save/failed', error: toErrorData(e) });
        } finally {
          dispatch({ type: 'refresh/changed', provider, running: false });
        }
        await load();
      },
    };
  });
}
