// Optional files of the account folder that are broken (hand-edited, truncated) degrade one
// feature with a warning; they never keep Settings or chat from opening.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload, Result } from '../contract/channels.js';
import { createHost, type Host, type Logger } from '../host.js';
import { startLoopbackProvider } from '../llm/index.js';
import { tempDir } from '../test-support/index.js';
import { invokeChannel } from '../transport/dispatch.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function setup() {
  const home = tempDir();
  writeFileSync(join(home, 'secrets.json'), '{"version": 1, "keys": {"openai": "sk-');
  writeFileSync(join(home, 'prices.json'), '{"openai": {"gpt-4o": {"input_per_mtok": "cheap"}}}');
  const warnings: string[] = [];
  const logger: Logger = { info: (m) => warnings.push(m), error: () => {} };
  const host: Host = createHost({ home, env: {}, mode: 'test', logger });
  cleanups.push(() => host.dispose());
  const call = async <T = Record<string, unknown>>(channel: string, req: unknown) =>
    (await invokeChannel(host.handlers, channel, req, { transport: 'in-process' }, logger)) as Result<T>;
  const ok = async <T = Record<string, unknown>>(channel: string, req: unknown): Promise<T> => {
    const r = await call<T>(channel, req);
    if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
    return r.value;
  };
  const finished = () =>
    new Promise<EventPayload<'chat/turn-finished'>>((resolve) => {
      const off = host.events.subscribe('chat/turn-finished', (p) => {
        off();
        resolve(p);
      });
    });
  return { home, ok, finished, warnings };
}

describe('broken optional files', () => {
  it('Settings opens with a warning naming secrets.json and prices.json and what to do', async () => {
    const { home, ok } = setup();
    const s = await ok<{ warning: string; providers: Array<{ id: string; has_key: boolean }> }>(
      'settings/get',
      {},
    );
    expect(s.warning).toContain(join(home, 'secrets.json'));
    expect(s.warning).toMatch(/fix or delete it, or enter the keys again/);
    expect(s.warning).toContain(join(home, 'prices.json'));
    expect(s.warning).toMatch(/built-in prices/);
    expect(s.providers.find((p) => p.id === 'openai')?.has_key).toBe(false);
  });

  it('a provider that needs no key chats; one that needs a key says the file is broken', async () => {
    const provider = await startLoopbackProvider({ script: [{ text: 'Hello.' }] });
    cleanups.push(() => provider.close());
    const { ok, finished, warnings } = setup();
    await ok('settings/set-provider', { provider: 'openai-compatible', base_url: provider.url, model: 'm' });
    let done = finished();
    await ok('chat/send-message', { message: 'hi' });
    expect(await done).toMatchObject({ status: 'complete', text: 'Hello.' });
    expect(warnings.join('\n')).toMatch(/prices\.json/);

    await ok('settings/set-provider', { provider: 'openai', base_url: provider.url });
    done = finished();
    await ok('chat/send-message', { message: 'hi again' });
    const end = await done;
    expect(end.status).toBe('error');
    expect(end.error).toMatchObject({
      code: 'LLM_MISSING_KEY',
      message: expect.stringContaining('secrets.json'),
    });
  });

  it('saving a key replaces the broken file and keeps it beside, unreadable but not lost', async () => {
    const { home, ok } = setup();
    await ok('settings/set-key', { provider: 'openai', key: 'sk-new' });
    expect(JSON.parse(readFileSync(join(home, 'secrets.json'), 'utf8')).keys).toEqual({ openai: 'sk-new' });
    const kept = readdirSync(home).filter((f) => f.startsWith('secrets.json.unreadable-'));
    expect(kept).toHaveLength(1);
    expect(readFileSync(join(home, kept[0]!), 'utf8')).toContain('"sk-');
    const s = await ok<{ warning: string | null }>('settings/get', {});
    expect(s.warning ?? '').not.toContain('secrets.json');
    expect(existsSync(join(home, 'secrets.json'))).toBe(true);
  });
});
