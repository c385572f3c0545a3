// The skill listing's budget is a setting (a share of the chat model's context), shown with the
// model's context and the budget in tokens, persisted, and used by chat turns: within it every
// enabled skill is listed; above it phase 1 chooses and the model is told how many were left out.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload, Result } from '../contract/channels.js';
import type { GetSettingsRes } from '../contract/settings.js';
import { startLoopbackProvider } from '../llm/index.js';
import { quietLogger, runCli, tempDir, testHost } from '../test-support/index.js';
import { invokeChannel } from '../transport/dispatch.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The system prompt of the model request the loopback provider received last. */
function lastSystem(requests: Array<{ body: unknown }>): string {
  const body = requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };
  const sys = body.messages.find((m) => m.role === 'system')!;
  return typeof sys.content === 'string' ? sys.content : JSON.stringify(sys.content);
}

describe('the listing budget setting', () => {
  it('is shown for the default model, persisted, validated, and decides whether a turn lists the catalog whole', async () => {
    const provider = await startLoopbackProvider({ script: { turns: [{ text: 'one' }, { text: 'two' }] } });
    cleanups.push(() => provider.close());
    const home = tempDir();
    const host = testHost({ home });
    const call = async <T>(channel: string, req: unknown) =>
      (await invokeChannel(
        host.handlers,
        channel,
        req,
        { transport: 'in-process' },
        quietLogger,
      )) as Result<T>;
    const ok = async <T>(channel: string, req: unknown): Promise<T> => {
      const r = await call<T>(channel, req);
      if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
      return r.value;
    };
    const turn = async (message: string) => {
      const done = new Promise<EventPayload<'chat/turn-finished'>>((resolve) => {
        const off = host.events.subscribe('chat/turn-finished', (p) => {
          off();
          resolve(p);
        });
      });
      const started = new Promise<EventPayload<'chat/turn-started'>>((resolve) => {
        const off = host.events.subscribe('chat/turn-started', (p) => {
          off();
          resolve(p);
        });
      });
      await ok('chat/send-message', { message });
      expect((await done).status).toBe('complete');
      return { system: lastSystem(provider.requests), listing: (await started).listing };
    };

    const none = await ok<GetSettingsRes>('settings/get', {});
    expect(none.listing).toEqual({
      percent: 1,
      model: null,
      context_tokens: 128_000,
      context_known: false,
      budget_tokens: 1280,
    });
    await ok('settings/save-provider', {
      kind: 'openai-compatible',
      base_url: provider.url,
      model: 'gpt-4o',
    });
    const s = await ok<GetSettingsRes>('settings/get', {});
    expect(s.listing).toMatchObject({
      percent: 1,
      model: 'gpt-4o',
      context_known: true,
      budget_tokens: 1280,
    });

    // Within 1% of 128k the built-in catalog is listed whole.
    const whole = await turn('what is 2+40');
    expect(whole.system).toContain('The skills you can use');
    expect(whole.system).toContain('- CSV Statistics:');
    expect(whole.listing).toEqual({ whole: true, unlisted: 0 });

    // A budget too small for it: phase 1 chooses, and the model is told what was left out.
    const small = await ok<GetSettingsRes>('settings/set-listing-budget', { percent: 0.05 });
    expect(small.listing).toMatchObject({ percent: 0.05, budget_tokens: 64 });
    expect(JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')).listing_budget_percent).toBe(0.05);
    const cut = await turn('compute statistics for each column of this CSV file');
    expect(cut.system).not.toContain('The skills you can use');
    expect(cut.system).toContain('- CSV Statistics:');
    // The turn says what was left out: to the model in its prompt, and in its started event.
    const unlisted = cut.listing!.unlisted;
    expect(unlisted).toBeGreaterThan(0);
    expect(cut.system).toContain(`(${unlisted} other skills are not listed here: search_skills`);
    expect(cut.listing!.whole).toBe(false);

    expect(await call('settings/set-listing-budget', { percent: 50 })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT' },
    });
  });

  it('skilldesk settings listing-budget shows and sets it', async () => {
    const home = tempDir();
    const shown = await runCli(['--home', home, 'settings', 'listing-budget']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('1% of the default model');
    expect(shown.stdout).toContain('= 1,280 tokens');
    const set = await runCli(['--home', home, '--json', 'settings', 'listing-budget', '2.5']);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout).listing).toMatchObject({ percent: 2.5, budget_tokens: 3200 });
    const bad = await runCli(['--home', home, 'settings', 'listing-budget', '11']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('from 0 to 10');
  });
});
