import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { ProgressTask } from '../contract/progress.js';
import type { SandboxProcessHandle, SpawnSandboxProcess } from '../sandbox/index.js';
import { createProgressTracker, trackSandboxStarts, trackSidecarStarts, withProgress } from './tracker.js';

function fakeProcess() {
  const ev = new EventEmitter();
  let killed = false;
  const handle: SandboxProcessHandle = {
    pid: 1,
    isolation: { method: 'none', blocks_tcp: false, blocks_unix: false, detail: 'test' },
    write: () => {},
    onData: (cb) => ev.on('data', cb),
    onExit: (cb) => ev.on('exit', cb),
    kill: () => {
      killed = true;
      ev.emit('exit', null, 'SIGKILL');
    },
    stderrTail: () => '',
  };
  return { handle, ev, killed: () => killed };
}

describe('progress tracker', () => {
  it('publishes each change, ends a task once, and cancels only cancellable running tasks', () => {
    const seen: ProgressTask[] = [];
    let clock = 0;
    const p = createProgressTracker({ emit: (t) => seen.push(t), clock: () => clock });
    let stopped = 0;
    const a = p.start('pages', 'Indexing pages', { cancel: () => stopped++ });
    const b = p.start('import', 'Importing skills');
    a.update('3 of 9', 1 / 3);
    expect(p.handlers['progress/list']({}, { transport: 'in-process' })).toMatchObject({
      tasks: [
        { id: a.id, fraction: 1 / 3, cancellable: true },
        { id: b.id, cancellable: false },
      ],
    });
    expect(p.cancel(b.id)).toBe(false);
    expect(p.cancel(a.id)).toBe(true);
    expect(stopped).toBe(1);
    a.done('too late');
    expect(p.cancel(a.id)).toBe(false);
    b.done('2 skills');
    expect(seen.map((t) => `${t.label}:${t.state}`)).toEqual([
      'Indexing pages:running',
      'Importing skills:running',
      'Indexing pages:running',
      'Indexing pages:cancelled',
      'Importing skills:done',
    ]);
    clock = 61_000;
    p.start('sidecar', 'Starting DSPy');
    expect(p.list().map((t) => t.kind)).toEqual(['sidecar']);
  });

  it('reports a sandbox start until its first warm worker, and kills it on cancel', () => {
    const seen: ProgressTask[] = [];
    const p = createProgressTracker({ emit: (t) => seen.push(t) });
    const procs: ReturnType<typeof fakeProcess>[] = [];
    const spawn: SpawnSandboxProcess = () => {
      const f = fakeProcess();
      procs.push(f);
      return f.handle;
    };
    const tracked = trackSandboxStarts(spawn, p);
    tracked({} as Parameters<SpawnSandboxProcess>[0]);
    procs[0]!.ev.emit('data', new TextEncoder().encode('{"type":"hello"}'));
    expect(p.list()[0]).toMatchObject({ kind: 'sandbox', state: 'running' });
    procs[0]!.ev.emit('data', new TextEncoder().encode('{"type":"worker-'));
    procs[0]!.ev.emit('data', new TextEncoder().encode('ready","success":true}'));
    expect(p.list()[0]).toMatchObject({ state: 'done' });

    tracked({} as Parameters<SpawnSandboxProcess>[0]);
    const second = p.list().find((t) => t.state === 'running')!;
    expect(p.cancel(second.id)).toBe(true);
    expect(procs[1]!.killed()).toBe(true);
    expect(p.list().find((t) => t.id === second.id)?.state).toBe('cancelled');
  });
});

describe('sidecar start progress', () => {
  it('is done at the first line on stdout, failed when the process exits first', async () => {
    const p = createProgressTracker({ emit: () => {} });
    const spawn = trackSidecarStarts(p);
    const ok = spawn(process.execPath, [
      '-e',
      'setTimeout(() => console.log("hello"), 50); setTimeout(() => {}, 500)',
    ]);
    await expect.poll(() => p.list()[0]?.state).toBe('done');
    ok.kill();
    const bad = spawn(process.execPath, ['-e', 'process.exit(3)']);
    await new Promise((r) => bad.once('exit', r));
    await expect.poll(() => p.list()[1]?.state).toBe('failed');
    expect(p.list()[1]?.detail).toMatch(/exit 3/);
  });
});

describe('withProgress', () => {
  it('reports a call as a task that ends with its summary or its error', async () => {
    const p = createProgressTracker({ emit: () => {} });
    const ok = withProgress(
      p,
      async (n: number) => n * 2,
      'import',
      (n) => `Importing ${n}`,
      (r) => `${r} done`,
    );
    expect(await ok(2, { transport: 'in-process' })).toBe(4);
    const bad = withProgress(
      p,
      async () => {
        throw new Error('bad zip');
      },
      'import',
      () => 'Importing x',
      () => '',
    );
    await expect(bad(0, { transport: 'in-process' })).rejects.toThrow('bad zip');
    expect(p.list().map((t) => [t.label, t.state, t.detail])).toEqual([
      ['Importing 2', 'done', '4 done'],
      ['Importing x', 'failed', 'bad zip'],
    ]);
  });
});
