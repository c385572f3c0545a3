// Several providers side by side: the settings file's migration from one provider, each provider's
// own base URL, key and model list, and a chat pinned to one of them resolving it whatever the
// default is — against two real loopback servers.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Result } from '../contract/channels.js';
import type {
  FindLocalServersRes,
  GetSettingsRes,
  SaveProviderRes,
  TestConnectionRes,
} from '../contract/settings.js';
import { createEventHub } from '../host/events.js';
import { type LoopbackScriptInput, startLoopbackProvider } from '../llm/index.js';
import { tempDir } from '../test-support/index.js';
import { invokeChannel } from '../transport/dispatch.js';
import { createProviderSettings, localServerCandidates, resolveProvider } from './handlers.js';
import { createMemorySecretStore } from './secrets.js';
import { parseSettingsFile, readSettings } from './settings-file.js';

const quiet = { info: () => {}, error: () => {} };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function setup(env: NodeJS.ProcessEnv = {}) {
  const home = tempDir();
  const secrets = createMemorySecretStore();
  const settings = createProviderSettings({
    home,
    env,
    secrets,
    events: createEventHub(),
    now: () => performance.now(),
  });
  const call = async <T>(channel: string, req: unknown) =>
    (await invokeChannel(
      settings.handlers as never,
      channel,
      req,
      { transport: 'in-process' },
      quiet,
    )) as Result<T>;
  const ok = async <T = GetSettingsRes>(channel: string, req: unknown): Promise<T> => {
    const r = await call<T>(channel, req);
    if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
    return r.value;
  };
  return { home, secrets, settings, call, ok };
}

async function loopback(script: LoopbackScriptInput) {
  const p = await startLoopbackProvider({ script });
  cleanups.push(() => p.close());
  return p;
}

describe('settings file migration', () => {
  // A settings.json as the app wrote it when it held a single provider.
  const OLD = {
    version: 1,
    chat: { provider: 'openai-compatible', model: 'llama3.2', base_url: 'http://127.0.0.1:11434/v1' },
    sandbox: { allow_in_process_isolation: true },
  };

  it('reads a one-provider file as one configured provider, the default, losing nothing', () => {
    const home = tempDir();
    writeFileSync(join(home, 'settings.json'), JSON.stringify(OLD));
    const { settings, warning } = readSettings(home);
    expect(warning).toBeNull();
    expect(settings).toEqual({
      version: 2,
      providers: [
        {
          id: 'openai-compatible',
          kind: 'openai-compatible',
          label: 'OpenAI-compatible',
          model: 'llama3.2',
          base_url: 'http://127.0.0.1:11434/v1',
        },
      ],
      default_provider: 'openai-compatible',
      sandbox: { allow_in_process_isolation: true },
    });
    // Reading does not rewrite the file.
    expect(JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8'))).toEqual(OLD);
  });

  it('migrates files without a version or without a provider, and names what is wrong in a bad one', () => {
    expect(parseSettingsFile({ chat: { provider: 'anthropic' } })).toMatchObject({
      success: true,
      data: {
        providers: [{ id: 'anthropic', kind: 'anthropic', label: 'Anthropic' }],
        default_provider: 'anthropic',
      },
    });
    expect(parseSettingsFile({ version: 1, chat: null })).toMatchObject({
      success: true,
      data: { providers: [], default_provider: null },
    });
    const bad = parseSettingsFile({ version: 1, chat: { provider: 'skynet' } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['chat', 'provider']);
    const dup = parseSettingsFile({
      version: 2,
      providers: [
        { id: 'a', kind: 'openai', label: 'A' },
        { id: 'a', kind: 'openai', label: 'B' },
      ],
      default_provider: 'zz',
    });
    expect(dup.error?.issues.map((i) => i.message)).toEqual([
      '"a" is used twice',
      'no provider has the id "zz"',
    ]);
  });

  it('keeps working through the slice: the old key and a chat pinned to the old provider still resolve', async () => {
    const server = await loopback({ turns: [{ text: 'hi' }], api_key: 'sk-old', models: ['old-model'] });
    const { home, secrets, settings, ok } = setup();
    writeFileSync(
      join(home, 'settings.json'),
      JSON.stringify({ version: 1, chat: { provider: 'openai', model: 'old-model', base_url: server.url } }),
    );
    secrets.set('openai', 'sk-old');
    const s = await ok('settings/get', {});
    expect(s.configured).toEqual([
      expect.objectContaining({ id: 'openai', is_default: true, has_key: true, base_url: server.url }),
    ]);
    expect(settings.chatLlm({ provider: 'openai', model: 'old-model' })).toMatchObject({
      provider: 'openai',
      model: 'old-model',
    });
    expect(await ok('settings/test-connection', {})).toMatchObject({ ok: true, model_listed: true });
  });
});

describe('providers side by side', () => {
  it('adds two providers of one kind with their own base URL, key and cached model list', async () => {
    const a = await loopback({
      turns: [{ text: 'from A' }],
      api_key: 'sk-a',
      models: ['alpha-1', 'alpha-2'],
    });
    const b = await loopback({ turns: [{ text: 'from B' }], api_key: 'sk-b', models: ['beta-1'] });
    const { home, settings, ok, call } = setup();
    const first = await ok<SaveProviderRes>('settings/save-provider', {
      kind: 'openai-compatible',
      label: 'Local A',
      base_url: a.url,
      model: 'alpha-1',
    });
    const second = await ok<SaveProviderRes>('settings/save-provider', {
      kind: 'openai-compatible',
      label: 'Local B',
      base_url: b.url,
      model: 'beta-1',
    });
    expect([first.id, second.id]).toEqual(['openai-compatible', 'openai-compatible-2']);
    // The first provider became the default; the second did not take it.
    expect(second.settings.chat).toMatchObject({ provider: 'openai-compatible', model: 'alpha-1' });
    await ok('settings/set-key', { provider: first.id, key: 'sk-a' });
    await ok('settings/set-key', { provider: second.id, key: 'sk-b' });

    const listA = await ok<{ models: string[]; fetched_at: string | null }>('settings/list-models', {
      provider: first.id,
    });
    expect(listA.models).toEqual(['alpha-1', 'alpha-2']);
    expect(listA.fetched_at).not.toBeNull();
    expect((await ok<{ models: string[] }>('settings/list-models', { provider: second.id })).models).toEqual([
      'beta-1',
    ]);
    // Cached: asked once; a refresh asks again.
    await ok('settings/list-models', { provider: first.id });
    expect(a.requests.filter((r) => r.kind === 'models')).toHaveLength(1);
    await ok('settings/list-models', { provider: first.id, refresh: true });
    expect(a.requests.filter((r) => r.kind === 'models')).toHaveLength(2);
    const saved = readSettings(home).settings.providers;
    expect(saved.map((p) => p.models?.list)).toEqual([['alpha-1', 'alpha-2'], ['beta-1']]);
    expect(JSON.stringify(readSettings(home))).not.toContain('sk-a');

    // Both answer with their own key at their own URL.
    const replyA = await settings.chatLlm({ provider: first.id, model: 'alpha-2' })!.generate({
      messages: [{ role: 'user', content: 'hi' }],
    });
    const replyB = await settings.chatLlm({ provider: second.id, model: 'beta-1' })!.generate({
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect([replyA.text, replyB.text]).toEqual(['from A', 'from B']);
    expect(a.requests.at(-1)?.body).toMatchObject({ model: 'alpha-2' });
    expect(b.requests.at(-1)?.body).toMatchObject({ model: 'beta-1' });

    // A change of base URL forgets the list (read again at once, since the model must come from
    // it); a change of label keeps it.
    await ok('settings/save-provider', {
      id: first.id,
      kind: 'openai-compatible',
      label: 'A',
      base_url: a.url,
    });
    expect(readSettings(home).settings.providers[0]?.models?.list).toEqual(['alpha-1', 'alpha-2']);
    const modelReads = a.requests.filter((r) => r.kind === 'models').length;
    await ok('settings/save-provider', { id: first.id, kind: 'openai-compatible', base_url: `${a.url}/` });
    expect(a.requests.filter((r) => r.kind === 'models')).toHaveLength(modelReads + 1);
    expect(readSettings(home).settings.providers[0]?.models?.list).toEqual(['alpha-1', 'alpha-2']);
    // A key only for a provider set up (or a provider kind).
    expect(await call('settings/set-key', { provider: 'nobody', key: 'sk-x' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    // A kind's id is only for that kind.
    expect(
      await call('settings/save-provider', { id: 'anthropic', kind: 'openai-compatible', base_url: a.url }),
    ).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
  });

  it('resolves a pinned chat whatever the default is, and says what to do once its provider is gone', async () => {
    const a = await loopback({ turns: [], models: ['alpha-1'] });
    const b = await loopback({ turns: [], models: ['beta-1'] });
    const { settings, ok, secrets } = setup();
    const ida = (
      await ok<SaveProviderRes>('settings/save-provider', { kind: 'openai-compatible', base_url: a.url })
    ).id;
    const idb = (
      await ok<SaveProviderRes>('settings/save-provider', {
        kind: 'openai-compatible',
        base_url: b.url,
        make_default: true,
      })
    ).id;
    // No model named and none to guess: the first one its server lists, read when it was saved.
    expect(settings.chatLlm()).toMatchObject({ model: 'beta-1' });
    expect((await ok('settings/get', {})).chat?.provider).toBe(idb);
    const pinned = { provider: ida, model: 'alpha-1' };
    expect(settings.chatLlm(pinned)).toMatchObject({ provider: 'openai-compatible', model: 'alpha-1' });
    await ok('settings/set-default', { id: ida, model: 'alpha-1' });
    await ok('settings/set-default', { id: idb, model: 'beta-1' });
    expect(settings.chatLlm()).toMatchObject({ model: 'beta-1' });
    expect(settings.chatLlm(pinned)).toMatchObject({ model: 'alpha-1' });

    // Removing a provider removes its key and moves the default on.
    secrets.set(idb, 'sk-b');
    const after = await ok('settings/remove-provider', { id: idb });
    expect(secrets.get(idb)).toBeUndefined();
    expect(after.chat?.provider).toBe(ida);
    expect(() => settings.chatLlm({ provider: idb, model: 'beta-1' })).toThrow(
      /no longer set up: choose another model/,
    );
  });

  it('resolves a provider by id, else by kind for chats older than configured providers', () => {
    const s = {
      version: 2 as const,
      providers: [{ id: 'work', kind: 'openai' as const, label: 'Work', base_url: 'http://x.test/v1' }],
      default_provider: 'work',
      sandbox: { allow_in_process_isolation: false },
    };
    expect(resolveProvider(s, 'work')).toMatchObject({ kind: 'openai', base_url: 'http://x.test/v1' });
    expect(resolveProvider(s, 'anthropic')).toEqual({
      id: 'anthropic',
      kind: 'anthropic',
      label: 'Anthropic',
    });
    expect(resolveProvider(s, 'nobody')).toBeNull();
  });

  it('reads a key from the kind’s environment variable when none is stored under the provider', async () => {
    const server = await loopback({ turns: [], api_key: 'sk-env', models: ['m'] });
    const { ok } = setup({ OPENAI_API_KEY: 'sk-env' });
    const { id, settings } = await ok<SaveProviderRes>('settings/save-provider', {
      kind: 'openai',
      label: 'Team',
      base_url: server.url,
    });
    expect(settings.configured[0]).toMatchObject({ id, has_key: true, source: 'env', label: 'Team' });
    expect(await ok('settings/test-connection', { provider: id })).toMatchObject({
      ok: true,
      model_count: 1,
    });
    expect(JSON.stringify(await ok('settings/get', {}))).not.toContain('sk-env');
  });

  it('names chats automatically unless turned off in Settings or by SKILLDESK_CHAT_TITLES', async () => {
    const { settings, ok } = setup();
    expect(settings.autoTitles()).toBe(true);
    expect(await ok('settings/set-chat-titles', { chat_titles: 'off' })).toMatchObject({
      chat_titles: 'off',
      chat_titles_from_env: false,
    });
    expect(settings.autoTitles()).toBe(false);
    const forced = setup({ SKILLDESK_CHAT_TITLES: 'off' });
    expect(await forced.ok('settings/get', {})).toMatchObject({
      chat_titles: 'off',
      chat_titles_from_env: true,
    });
    expect(forced.settings.autoTitles()).toBe(false);
  });

  it('picks a model its server serves: never an invented name, and Test says which it took', async () => {
    const strict = await loopback({
      turns: [{ text: 'served', expect: { model: 'alpha-small' } }],
      models: ['alpha-small', 'alpha-large'],
      strict_models: true,
    });
    const { settings, ok } = setup();
    // A hosted kind pointed at a server without its default model: Test picks the first listed.
    const id = (await ok<SaveProviderRes>('settings/save-provider', { kind: 'openai', base_url: strict.url }))
      .id;
    await ok('settings/set-key', { provider: id, key: 'sk-x' });
    const t = await ok<TestConnectionRes>('settings/test-connection', { provider: id });
    expect(t).toMatchObject({
      ok: true,
      model: 'alpha-large',
      picked_model: 'alpha-large',
      model_listed: true,
    });
    // A model the user named that the server lacks is said, not picked over their choice.
    await ok('settings/save-provider', { id, kind: 'openai', base_url: strict.url, model: 'gone' });
    const t2 = await ok<TestConnectionRes>('settings/test-connection', { provider: id });
    expect(t2).toMatchObject({ ok: true, model: 'gone', picked_model: null, model_listed: false });
    // A local server saved with no model answers its first message with its first model.
    const local = (
      await ok<SaveProviderRes>('settings/save-provider', {
        kind: 'openai-compatible',
        base_url: strict.url,
        make_default: true,
      })
    ).settings;
    expect(local.configured.at(-1)).toMatchObject({ model: null, effective_model: 'alpha-large' });
    await ok('settings/save-provider', {
      id: local.configured.at(-1)!.id,
      kind: 'openai-compatible',
      base_url: strict.url,
      model: 'alpha-small',
    });
    const reply = await settings.chatLlm()!.generate({ messages: [{ role: 'user', content: 'hi' }] });
    expect(reply.text).toBe('served');
  });

  it('finds model servers on loopback and only there', async () => {
    const srv = await loopback({ turns: [], models: ['qwen3:4b', 'llama3.2:1b'] });
    const { ok } = setup({
      SKILLDESK_LOCAL_SERVERS: `Ollama=${srv.url};Nothing=http://127.0.0.1:9/v1;Far=http://example.com/v1`,
    });
    expect(localServerCandidates({ SKILLDESK_LOCAL_SERVERS: 'Far=http://example.com/v1' })).toEqual([]);
    expect(localServerCandidates({}).map((c) => c.base_url)).toEqual([
      'http://127.0.0.1:11434/v1',
      'http://127.0.0.1:1234/v1',
      'http://127.0.0.1:8080/v1',
    ]);
    const found = await ok<FindLocalServersRes>('settings/find-local-servers', {});
    expect(found.servers).toEqual([
      { name: 'Ollama', base_url: srv.url, models: ['llama3.2:1b', 'qwen3:4b'], configured_id: null },
    ]);
    await ok('settings/save-provider', { kind: 'openai-compatible', label: 'Ollama', base_url: srv.url });
    expect((await ok<FindLocalServersRes>('settings/find-local-servers', {})).servers[0]?.configured_id).toBe(
      'openai-compatible',
    );
  });
});
