import { describe, expect, it } from 'vitest';
import { createRunRegistry } from './run-registry.js';

describe('run registry', () => {
  it('cancels a named run, refuses a second run of the name, and forgets it when done', () => {
    const runs = createRunRegistry();
    const a = runs.start('r1');
    expect(() => runs.start('r1')).toThrow(/a run named r1 is already running/);
    expect(runs.cancel('r1')).toEqual({ cancelled: true });
    expect(a.signal.aborted).toBe(true);
    a.done();
    expect(runs.cancel('r1')).toEqual({ cancelled: false });
    const b = runs.start('r1');
    expect(b.signal.aborted).toBe(false);
    b.done();
  });

  it('aborts when the caller goes away, and an unnamed run is not cancellable by name', () => {
    const runs = createRunRegistry();
    const caller = new AbortController();
    const run = runs.start(undefined, caller.signal);
    caller.abort();
    expect(run.signal.aborted).toBe(true);
    run.done();
    expect(runs.cancel('')).toEqual({ cancelled: false });
  });
});
