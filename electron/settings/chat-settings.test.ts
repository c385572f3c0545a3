import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventName, EventPayload, Result } from '../contract/channels.js';
import type { GetSettingsRes } from '../contract/settings.js';
import { createHost, type Host, type Logger } from '../host.js';
import { type LoopbackScriptInput, startLoopbackProvider } from '../llm/index.js';
import { quietLogger, tempDir, testHost } from '../test-support/index.js';
import { invokeChannel } from '../transport/dispatch.js';
import { createMemorySecretStore, type SecretStore } from './secrets.js';

const quiet: Logger = { info: () => {}, error: () => {} };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function setup(opts: { env?: NodeJS.ProcessEnv; secrets?: SecretStore } = {}) {
  const home = tempDir();
  const host: Host = createHost({
    home,
    env: opts.env ?? {},
    mode: 'test',
    logger: quiet,
    secrets: opts.secrets,
  });
  cleanups.push(() => host.dispose());
  const call = async <T = Record<string, unknown>>(channel: string, req: unknown) =>
    (await invokeChannel(host.handlers, channel, req, { transport: 'in-process' }, quiet)) as Result<T>;
  const ok = async <T = Record<string, unknown>>(channel: string, req: unknown): Promise<T> => {
    const r = await call<T>(channel, req);
    if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
    return r.value;
  };
  const record = () => {
    const seen: Array<{ event: EventName; payload: unknown }> = [];
    const names: EventName[] = [
      'chat/turn-started',
      'chat/delta-received',
      'chat/tool-call-started',
      'chat/tool-call-finished',
      'chat/turn-finished',
    ];
    for (const n of names) host.events.subscribe(n, (payload) => seen.push({ event: n, payload }));
    return seen;
  };
  const finished = () =>
    new Promise<EventPayload<'chat/turn-finished'>>((resolve) => {
      const off = host.events.subscribe('chat/turn-finished', (p) => {
        off();
        resolve(p);
      });
    });
  return { home, host, call, ok, record, finished };
}

async function loopback(script: LoopbackScriptInput) {
  const provider = await startLoopbackProvider({ script });
  cleanups.push(() => provider.close());
  return provider;
}

describe('settings slice', () => {
  it('starts with no provider and lists every provider without keys', async () => {
    const { ok } = setup();
    const s = await ok<{
      chat: unknown;
      providers: Array<{ id: string; has_key: boolean }>;
      warning: unknown;
    }>('settings/get', {});
    expect(s.chat).toBeNull();
    expect(s.warning).toBeNull();
    expect(s.providers.map((p) => p.id)).toContain('openai-compatible');
    expect(s.providers.every((p) => !p.has_key)).toBe(true);
  });

  it('persists the provider choice in settings.json and validates it', async () => {
    const { home, ok, call } = setup();
    await ok('settings/set-provider', { provider: 'openai', model: 'gpt-4.1-mini' });
    expect(JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8'))).toEqual({
      version: 2,
      providers: [{ id: 'openai', kind: 'openai', label: 'OpenAI', model: 'gpt-4.1-mini' }],
      default_provider: 'openai',
      sandbox: { allow_in_process_isolation: false },
    });
    expect(await ok('settings/get', {})).toMatchObject({
      chat: { provider: 'openai', kind: 'openai', model: 'gpt-4.1-mini', base_url: null },
    });
    expect(await call('settings/set-provider', { provider: 'openai-compatible' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT', message: expect.stringContaining('base_url') },
    });
    expect(await call('settings/set-provider', { provider: 'ollama' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT' },
    });
    expect(
      await call('settings/set-provider', { provider: 'openai', base_url: 'file:///etc' }),
    ).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT' },
    });
  });

  it('falls back to the defaults with a warning when settings.json is corrupt, and rewrites it', async () => {
    const { home, ok } = setup();
    writeFileSync(join(home, 'settings.json'), '{"chat": {"provider": ');
    const s = await ok<{ chat: unknown; warning: string }>('settings/get', {});
    expect(s.chat).toBeNull();
    expect(s.warning).toMatch(/could not be read.*defaults/);
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ chat: { provider: 'skynet' } }));
    expect((await ok<{ warning: string }>('settings/get', {})).warning).toMatch(/chat\.provider/);
    await ok('settings/set-provider', { provider: 'anthropic' });
    expect(await ok('settings/get', {})).toMatchObject({ warning: null, chat: { provider: 'anthropic' } });
  });

  it('takes a key in and never gives it back', async () => {
    const { home, ok, call } = setup({ env: { ANTHROPIC_API_KEY: 'sk-ant-from-env' } });
    const secret = 'sk-very-secret-123456';
    const r = await ok('settings/set-key', { provider: 'openai', key: secret });
    expect(r).toEqual({ provider: 'openai', has_key: true, source: 'file' });
    const s = await ok<{ providers: Array<{ id: string; has_key: boolean; source: string | null }> }>(
      'settings/get',
      {},
    );
    expect(JSON.stringify(s)).not.toContain(secret);
    expect(JSON.stringify(s)).not.toContain('sk-ant-from-env');
    expect(s.providers.find((p) => p.id === 'openai')).toMatchObject({ has_key: true, source: 'file' });
    expect(s.providers.find((p) => p.id === 'anthropic')).toMatchObject({ has_key: true, source: 'env' });
    expect(s.providers.find((p) => p.id === 'google')).toMatchObject({ has_key: false, source: null });
    const file = join(home, 'secrets.json');
    expect(readFileSync(file, 'utf8')).toContain(secret);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
    // An empty key removes it.
    await ok('settings/set-key', { provider: 'openai', key: '' });
    expect(readFileSync(file, 'utf8')).not.toContain(secret);
    expect(await call('settings/set-key', { provider: 'openai', key: 'a\nb' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT' },
    });
  });

  it('reports keychain storage when the shell provides it', async () => {
    const { ok } = setup({ secrets: createMemorySecretStore('keychain') });
    await ok('settings/set-key', { provider: 'xai', key: 'xai-123' });
    const s = await ok<{ key_storage: string; providers: Array<{ id: string; source: string | null }> }>(
      'settings/get',
      {},
    );
    expect(s.key_storage).toBe('keychain');
    expect(s.providers.find((p) => p.id === 'xai')?.source).toBe('keychain');
  });

  it('tests the connection by reading /models, spending no completion, and reports failures as data', async () => {
    const provider = await loopback({
      turns: [{ text: 'ok' }],
      api_key: 'sk-right',
      models: ['gpt-4.1-mini'],
    });
    const { ok } = setup();
    expect(await ok('settings/test-connection', {})).toMatchObject({
      ok: false,
      error: { code: 'LLM_NOT_CONFIGURED' },
    });
    await ok('settings/set-provider', { provider: 'openai', base_url: provider.url });
    expect(await ok('settings/test-connection', {})).toMatchObject({
      ok: false,
      error: { code: 'LLM_MISSING_KEY', message: expect.stringContaining('Settings → Providers') },
    });
    await ok('settings/set-key', { provider: 'openai', key: 'sk-right' });
    expect(await ok('settings/test-connection', {})).toMatchObject({
      ok: true,
      provider: 'openai',
      model: 'gpt-4.1-mini',
      model_count: 1,
      model_listed: true,
      base_url: provider.url,
    });
    expect(provider.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models']);
    expect(provider.remaining()).toBe(1);
    await ok('settings/set-key', { provider: 'openai', key: 'sk-wrong' });
    expect(await ok('settings/test-connection', { provider: 'openai' })).toMatchObject({
      ok: false,
      error: { code: 'LLM_FAILED', message: expect.stringContaining('HTTP 401') },
    });
  });
});

describe('chat slice', () => {
  it('validates requests', async () => {
    const { call } = setup();
    expect(await call('chat/send-message', { message: '   ' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT' },
    });
    expect(await call('chat/send-message', { message: 'hi', extra: 1 })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT' },
    });
    expect(await call('chat/send-message', { message: 'hi', session_id: 'nope' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    expect(await call('chat/get-session', { session_id: 'nope' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    expect(await call('chat/cancel', { session_id: 'nope' })).toMatchObject({
      ok: true,
      value: { cancelled: false },
    });
  });

  it('without a model, replies with what to configure; sessions list, load, rename and delete', async () => {
    const { ok, call, record, finished } = setup();
    const seen = record();
    const done = finished();
    const r = await ok<{ session_id: string; user_message_id: string }>('chat/send-message', {
      message: 'tl;dr of my notes please',
      client_turn_id: 'c1',
    });
    const end = await done;
    expect(end).toMatchObject({ session_id: r.session_id, status: 'complete', model_id: null });
    expect(end.text).toMatch(/No model is configured.*Settings → Providers/);
    expect(seen[0]).toMatchObject({
      event: 'chat/turn-started',
      payload: {
        session_id: r.session_id,
        client_turn_id: 'c1',
        new_session: true,
        message: 'tl;dr of my notes please',
      },
    });
    expect(seen.map((s) => s.event)).toEqual([
      'chat/turn-started',
      'chat/delta-received',
      'chat/turn-finished',
    ]);
    const list = await ok<{ sessions: Array<{ id: string; title: string; message_count: number }> }>(
      'chat/list-sessions',
      {},
    );
    expect(list.sessions).toEqual([
      expect.objectContaining({ id: r.session_id, title: 'tl;dr of my notes please', message_count: 2 }),
    ]);
    const got = await ok<{ messages: Array<{ role: string; status: string; id: string }> }>(
      'chat/get-session',
      {
        session_id: r.session_id,
      },
    );
    expect(got.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(got.messages[0]!.id).toBe(r.user_message_id);
    await ok('chat/rename-session', { session_id: r.session_id, title: 'Notes' });
    expect(
      (await ok<{ session: { title: string } }>('chat/get-session', { session_id: r.session_id })).session
        .title,
    ).toBe('Notes');
    expect(await ok('chat/delete-session', { session_id: r.session_id })).toEqual({
      deleted: { id: r.session_id, title: 'Notes' },
    });
    expect(await ok('chat/list-sessions', {})).toEqual({ sessions: [] });
    expect(await call('chat/delete-session', { session_id: r.session_id })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
  });

  it('streams a reply that applies a skill, with its traces, then cancels a turn in flight', async () => {
    const provider = await loopback([
      {
        tool_calls: [
          { name: 'apply_skill', arguments: { name: 'Summarize', ctx: { text: 'Q3 revenue rose 12%.' } } },
        ],
      },
      { text: 'Gist: revenue rose 12% in Q3.', usage: { input_tokens: 40, output_tokens: 9 } },
      { text: ['Revenue ', 'rose 12%.'] },
      { text: ['one ', 'two ', 'three ', 'four'], hang_after: 2 },
    ]);
    const { host, ok, call, record, finished } = setup();
    await ok('settings/set-provider', { provider: 'openai', base_url: provider.url });
    await ok('settings/set-key', { provider: 'openai', key: 'sk-test' });
    const seen = record();
    let done = finished();
    const r = await ok<{ session_id: string }>('chat/send-message', {
      message: 'Summarize: Q3 revenue rose 12%.',
    });
    const end = await done;
    expect(end).toMatchObject({ status: 'complete', text: 'Revenue rose 12%.', skills_used: ['Summarize'] });
    expect(end.trace_ids).toHaveLength(1);
    expect(seen.filter((s) => s.event === 'chat/tool-call-finished')).toEqual([
      {
        event: 'chat/tool-call-finished',
        payload: expect.objectContaining({
          session_id: r.session_id,
          name: 'apply_skill',
          ok: true,
          skill: 'Summarize',
          trace_ids: end.trace_ids,
        }),
      },
    ]);
    expect(
      seen.filter((s) => s.event === 'chat/delta-received').map((s) => (s.payload as { text: string }).text),
    ).toEqual(['Revenue ', 'rose 12%.']);
    const traces = await ok<{ traces: Array<{ id: string; skill_name: string; artifact_name: string }> }>(
      'traces/list',
      { session_id: r.session_id },
    );
    expect(traces.traces).toEqual([
      expect.objectContaining({
        id: end.trace_ids[0],
        skill_name: 'Summarize',
        artifact_name: 'Summary Prompt',
      }),
    ]);
    expect((await ok<{ traces: unknown[] }>('traces/list', { skill: 'summarize' })).traces).toHaveLength(1);
    expect((await ok<{ traces: unknown[] }>('traces/list', { skill: 'Translate' })).traces).toHaveLength(0);
    const trace = await ok<{ trace: Record<string, unknown> }>('traces/get', { id: end.trace_ids[0] });
    expect(trace.trace).toMatchObject({
      rendered_input: expect.stringContaining('Q3 revenue rose 12%.'),
      raw_output: 'Gist: revenue rose 12% in Q3.',
      input_tokens: 40,
      model_id: expect.stringContaining('gpt-4.1-mini'),
    });
    expect(await call('traces/get', { id: 'nope' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    const stored = await ok<{
      messages: Array<{ tool_calls: Array<{ skill?: string; trace_ids?: string[] }> }>;
    }>('chat/get-session', { session_id: r.session_id });
    expect(stored.messages[1]!.tool_calls[0]).toMatchObject({ skill: 'Summarize', trace_ids: end.trace_ids });

    // A turn that stalls mid-stream: a second send is refused, cancel keeps the partial reply.
    done = finished();
    const deltas: string[] = [];
    const twoDeltas = new Promise<void>((resolve) => {
      cleanups.push(
        host.events.subscribe('chat/delta-received', (p) => {
          deltas.push(p.text);
          if (deltas.length === 2) resolve();
        }),
      );
    });
    await ok('chat/send-message', { session_id: r.session_id, message: 'Count slowly' });
    await twoDeltas;
    expect(await ok('chat/list-sessions', {})).toMatchObject({ sessions: [{ running: true }] });
    expect(await call('chat/send-message', { session_id: r.session_id, message: 'again' })).toMatchObject({
      ok: false,
      error: { code: 'CONFLICT' },
    });
    expect(await ok('chat/cancel', { session_id: r.session_id })).toEqual({ cancelled: true });
    const cancelled = await done;
    expect(cancelled).toMatchObject({ status: 'partial', text: 'one two ', error: { code: 'CANCELLED' } });
    const after = await ok<{ messages: Array<{ status: string; content: string }> }>('chat/get-session', {
      session_id: r.session_id,
    });
    expect(after.messages.at(-1)).toMatchObject({ status: 'partial', content: 'one two ' });
    expect(await ok('chat/list-sessions', {})).toMatchObject({ sessions: [{ running: false }] });
  });
});

describe('settings: the Python sandbox', () => {
  it('reports how the OS confines the sandbox and keeps the in-process isolation choice', async () => {
    const home = tempDir();
    const host = testHost({ home, env: {} });
    const ctx = { transport: 'in-process' as const };
    const call = async (channel: string, req: unknown) => {
      const r = (await invokeChannel(
        host.handlers,
        channel,
        req,
        ctx,
        quietLogger,
      )) as Result<GetSettingsRes>;
      if (!r.ok) throw new Error(r.error.message);
      return r.value;
    };
    const get = await call('settings/get', {});
    expect(['bwrap', 'unshare', 'sandbox-exec', 'none']).toContain(get.sandbox.method);
    expect(get.sandbox.allow_in_process_isolation).toBe(false);
    const set = await call('settings/set-sandbox', { allow_in_process_isolation: true });
    expect(set.sandbox.allow_in_process_isolation).toBe(true);
    expect(JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')).sandbox).toEqual({
      allow_in_process_isolation: true,
    });
  });
});
