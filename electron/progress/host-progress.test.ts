import { describe, expect, it } from 'vitest';
import type { ProgressTask } from '../contract/progress.js';
import { testHost } from '../test-support/index.js';

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
});
