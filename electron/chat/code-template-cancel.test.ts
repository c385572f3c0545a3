// The chat's Stop reaches a running code_template: the skill's Python is interrupted in its
// worker (its trace says CANCELLED), the turn ends at once, and the next run in the chat works —
// rather than the run holding a worker until its own time limit.
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload, Result } from '../contract/channels.js';
import { createHost, type Host } from '../host.js';
import { startLoopbackProvider } from '../llm/index.js';
import { quietLogger, tempDir } from '../test-support/index.js';
import { invokeChannel } from '../transport/dispatch.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const skill = (name: string, code: string) => ({
  name,
  description: `${name}: a test skill`,
  version: '1.0.0',
  source: 'user',
  artifacts: [
    {
      kind: 'code_template',
      name: 'Run',
      ordinal: 0,
      content: code,
      metadata: { template: false, timeout_ms: 120_000 },
    },
  ],
});

describe('Stop in a chat and a running code_template', () => {
  it('interrupts the skill’s Python, ends the turn at once, and the next run works', async () => {
    const provider = await startLoopbackProvider({
      script: [
        { tool_calls: [{ name: 'apply_skill', arguments: { name: 'Spinner', ctx: {} } }] },
        { tool_calls: [{ name: 'apply_skill', arguments: { name: 'Quick Sum', ctx: {} } }] },
        { text: 'Summed.', expect: { tool_result_contains: '42' } },
      ],
    });
    cleanups.push(() => provider.close());
    const host: Host = createHost({ home: tempDir(), env: {}, mode: 'test', logger: quietLogger });
    cleanups.push(() => host.dispose());
    const ok = async <T = Record<string, unknown>>(channel: string, req: unknown): Promise<T> => {
      const r = (await invokeChannel(
        host.handlers,
        channel,
        req,
        { transport: 'in-process' },
        quietLogger,
      )) as Result<T>;
      if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
      return r.value;
    };
    const started: Array<EventPayload<'chat/tool-call-started'>> = [];
    host.events.subscribe('chat/tool-call-started', (e) => started.push(e));
    const turn = async (message: string, session_id?: string) => {
      const done = new Promise<EventPayload<'chat/turn-finished'>>((resolve) => {
        const off = host.events.subscribe('chat/turn-finished', (p) => {
          off();
          resolve(p);
        });
      });
      const r = await ok<{ session_id: string }>('chat/send-message', {
        message,
        ...(session_id ? { session_id } : {}),
      });
      return { session_id: r.session_id, finished: done };
    };
    await ok('settings/set-provider', { provider: 'openai', base_url: provider.url });
    await ok('settings/set-key', { provider: 'openai', key: 'sk-test' });
    await ok('skills/import-package', {
      package: skill('Spinner', 'import time\nwhile True:\n    time.sleep(0.01)\n'),
      scope: 'account',
    });
    await ok('skills/import-package', {
      package: skill('Quick Sum', 'from skilldesk import submit\nsubmit({"sum": 40 + 2})\n'),
      scope: 'account',
    });

    type Trace = { status: string; error_code: string | null; duration_ms: number | null };
    const spinner = async () =>
      (await ok<{ traces: Trace[] }>('traces/list', { skill: 'Spinner' })).traces[0];
    const t1 = await turn('Spin');
    await expect.poll(() => started.length, { timeout: 60_000 }).toBe(1);
    const t0 = Date.now();
    expect(await ok('chat/cancel', { session_id: t1.session_id })).toEqual({ cancelled: true });
    expect((await t1.finished).status).toBe('partial');
    // The run itself was stopped, queued or running (not left spinning until its 120 s limit):
    // its trace says so.
    await expect.poll(async () => (await spinner())?.error_code, { timeout: 15_000 }).toBe('CANCELLED');
    expect(Date.now() - t0).toBeLessThan(15_000);

    const t2 = await turn('Sum', t1.session_id);
    const f2 = await t2.finished;
    expect(f2, JSON.stringify(f2)).toMatchObject({ status: 'complete', text: 'Summed.' });
  }, 240_000);
});
