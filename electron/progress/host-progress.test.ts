import { describe, expect, it } from 'vitest';
import type { ProgressTask } from '../contract/progress.js';
import { tempDir, testHost } from '../test-support/index.js';

describe('progress of the real sandbox start', () => {
  it('reports "Starting the Python sandbox" at first use and ends it once a worker is warm', {
    timeout: 120_000,
  }, async () => {
    const host = testHost();
    const seen: ProgressTask[] = [];
    host.events.subscribe('progress/task-updated', (t) => seen.push(t));
    const r = await host.handlers['code/run']({ code: 'result = 6 * 7' }, { transport: 'in-process' });
    expect(r).toMatchObject({ ok: true });
    const sandbox = seen.filter((t) => t.kind === 'sandbox');
    expect(sandbox.map((t) => t.state)).toEqual(['running', 'done']);
    expect(sandbox[0]).toMatchObject({ label: 'Starting the Python sandbox', cancellable: true });
  });

  it("measures a cold start and gives its duration as the next one's estimate", {
    timeout: 180_000,
  }, async () => {
    const home = tempDir();
    const ctx = { transport: 'in-process' as const };
    const first = testHost({ home });
    const seen1: ProgressTask[] = [];
    first.events.subscribe('progress/task-updated', (t) => seen1.push(t));
    await first.handlers['code/run']({ code: 'result = 1' }, ctx);
    // Nothing measured yet: no estimate.
    expect(seen1.find((t) => t.kind === 'sandbox')).not.toHaveProperty('estimate_ms');
    await first.dispose();
    const second = testHost({ home });
    const seen2: ProgressTask[] = [];
    second.events.subscribe('progress/task-updated', (t) => seen2.push(t));
    await second.handlers['code/run']({ code: 'result = 2' }, ctx);
    const started = seen2.find((t) => t.kind === 'sandbox' && t.state === 'running')!;
    expect(started.estimate_ms).toBeGreaterThan(100);
    expect(started.detail).toMatch(/^Loading Pyodide \(about \d+ s last time\)$/);
  });
});
