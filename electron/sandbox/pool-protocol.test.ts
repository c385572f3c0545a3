// The pool's side of the sandbox protocol against a sandbox process played by the test: calls go
// through the peer, and the phase checks on top of it kill a process that steps out of line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../contract/errors.js';
import { resolveLimits } from './limits.js';
import { pyodideDir, RUNTIME_DIR, SandboxPool } from './pool.js';
import type { AppMessage, RunResult, SandboxMessage } from './protocol.js';
import { encodeFrames, FrameReader } from './runtime/frames.mjs';
import { spawnNodeSandbox } from './spawn.js';
import type { SandboxProcessHandle } from './types.js';

/** The smallest snapshot `checkSnapshot` accepts: right magic, header and build id. */
const SNAPSHOT = (() => {
  const bytes = new Uint8Array(4096);
  const u32 = new Uint32Array(bytes.buffer);
  u32[0] = 1886286592;
  u32[1] = 64;
  const json = new TextEncoder().encode('{}');
  u32[2] = json.length;
  const id = /BUILD_ID:"([0-9a-f]{64})"/.exec(readFileSync(join(pyodideDir(), 'pyodide.mjs'), 'utf8'))![1]!;
  for (let i = 0; i < 8; i++) u32[4 + i] = Number.parseInt(id.slice(i * 8, i * 8 + 8), 16);
  bytes.set(json, 48);
  return bytes;
})();

const RESULT: RunResult = {
  ok: true,
  submitted: false,
  result: null,
  stdout: 'done\n',
  stderr: '',
  truncated: { stdout: false, stderr: false },
  error: null,
  host_calls: 0,
  wait_ms: 0,
  run_ms: 1,
  worker_boot_ms: 1,
};

type Send = (m: SandboxMessage, bin?: Uint8Array) => void;

/** A sandbox process that starts well, then does what `onRun`/`onReply` say. */
function fakeProcess(script: {
  onRun: (send: Send, run: Extract<AppMessage, { type: 'run' }>) => void;
  onReply?: (send: Send, reply: Extract<AppMessage, { type: 'host-reply' }>, run: { id: string }) => void;
}) {
  let data: (c: Uint8Array) => void = () => {};
  let exit: (code: number | null, signal: string | null) => void = () => {};
  let killed = false;
  let run: { id: string } = { id: '' };
  const send: Send = (m, bin) => {
    for (const c of encodeFrames(m, bin)) data(c);
  };
  const reader = new FrameReader(
    { maxJson: 1 << 26, maxBinary: () => 1 << 30 },
    {
      onJson: (raw) =>
        queueMicrotask(() => {
          if (killed) return;
          const m = raw as AppMessage;
          if (m.type === 'init') {
            send({ type: 'snapshot', ms: 1, size: SNAPSHOT.length }, SNAPSHOT);
            send({ type: 'worker-ready', ms: 1 });
          } else if (m.type === 'run') {
            run = m;
            script.onRun(send, m);
          } else if (m.type === 'host-reply') script.onReply?.(send, m, run);
        }),
      onBinary: () => {},
      onViolation: () => {},
    },
  );
  const handle: SandboxProcessHandle = {
    pid: 4243,
    isolation: { method: 'none', blocks_tcp: false, blocks_unix: false, detail: 'test' },
    write: (c) => reader.push(c),
    onData: (cb) => {
      data = cb;
      queueMicrotask(() =>
        send({ type: 'hello', pid: 4243, self_check: { tcp: 'skipped', unix: 'skipped' } }),
      );
    },
    onExit: (cb) => {
      exit = cb;
    },
    kill: () => {
      if (killed) return;
      killed = true;
      queueMicrotask(() => exit(null, 'SIGKILL'));
    },
    stderrTail: () => '',
  };
  return { handle, wasKilled: () => killed };
}

const pools: SandboxPool[] = [];
afterEach(async () => {
  for (const p of pools.splice(0)) await p.close();
});

function poolOn(handle: SandboxProcessHandle) {
  const pool = new SandboxPool({ spawn: () => handle, allowInProcessIsolation: true, log: () => {} });
  pools.push(pool);
  return pool;
}

const hostCall = (id: string, parent: string, fn: string, args: unknown[] = []): SandboxMessage => ({
  type: 'host',
  id,
  parent,
  request: JSON.stringify({ fn, args }),
});

describe('the pool on the sandbox protocol', () => {
  it('answers host calls inside the open run through the peer, then takes the result', async () => {
    const replies: unknown[] = [];
    const fake = fakeProcess({
      onRun: (send, run) => send(hostCall('p1', run.id, 'get_page', ['a'])),
      onReply: (send, reply, run) => {
        replies.push(reply);
        if (reply.id === 'p1') send(hostCall('p2', run.id, 'get_page', ['missing']));
        else if (reply.id === 'p2') send(hostCall('p3', run.id, 'checkpoint', [{ step: 1 }]));
        else send({ type: 'result', id: run.id, result: { ...RESULT, host_calls: 3 } });
      },
    });
    const pool = poolOn(fake.handle);
    const host = {
      call: async (fn: string, args: unknown[]) => {
        if (args[0] === 'missing') throw new AppError('NOT_FOUND', 'no page missing', { path: '/secret' });
        return { fn, title: args[0] };
      },
    };
    const r = await pool.run('print(1)', { host });
    expect(r).toMatchObject({ ok: true, stdout: 'done\n', host_calls: 3, checkpoints: [{ step: 1 }] });
    expect(replies).toEqual([
      { type: 'host-reply', id: 'p1', result: { fn: 'get_page', title: 'a' } },
      // Details stay in the app.
      { type: 'host-reply', id: 'p2', error: { code: 'NOT_FOUND', message: 'no page missing' } },
      { type: 'host-reply', id: 'p3', result: null },
    ]);
    expect(fake.wasKilled()).toBe(false);
    expect(pool.stats().protocolViolations).toBe(0);
  });

  it('a run the process refuses with a sandbox error fails typed and the process keeps serving', async () => {
    let n = 0;
    const fake = fakeProcess({
      onRun: (send, run) =>
        n++ === 0
          ? send({
              type: 'result',
              id: run.id,
              error: { code: 'SANDBOX_FAILED', message: 'the sandbox is busy' },
            })
          : send({ type: 'result', id: run.id, result: RESULT }),
    });
    const pool = poolOn(fake.handle);
    const first = await pool.run('print(1)');
    expect(first.error).toEqual({
      type: 'SandboxFault',
      code: 'SANDBOX_FAILED',
      message: 'the sandbox is busy',
    });
    expect((await pool.run('print(2)')).ok).toBe(true);
    expect(fake.wasKilled()).toBe(false);
  });

  const violations: Array<[string, (send: Send, run: { id: string }) => void]> = [
    ['a host call that names no open run', (send) => send(hostCall('p1', 'r999', 'get_page'))],
    [
      'a second host call while one is being answered',
      (send, run) => {
        send(hostCall('p1', run.id, 'get_page'));
        send(hostCall('p2', run.id, 'get_page'));
      },
    ],
    ['a host call whose id does not increase', (send, run) => send(hostCall('p0', run.id, 'get_page'))],
    ['a host call with an id of the app', (send, run) => send(hostCall('r5', run.id, 'get_page'))],
    [
      'a result, then a host call for the run it ended',
      (send, run) => {
        send({ type: 'result', id: run.id, result: RESULT });
        send(hostCall('p1', run.id, 'get_page'));
      },
    ],
    [
      'an error code the protocol does not allow',
      (send, run) =>
        send({ type: 'result', id: run.id, error: { code: 'NOT_FOUND' as 'SANDBOX_FAILED', message: 'x' } }),
    ],
  ];
  for (const [name, act] of violations) {
    it(`kills the process for ${name}`, async () => {
      const fake = fakeProcess({ onRun: act });
      const pool = poolOn(fake.handle);
      const host = { call: () => new Promise<unknown>((r) => setTimeout(() => r(1), 50)) };
      const r = await pool.run('print(1)', { host });
      // Even a run whose result arrived just before: the process that sent it is not trusted.
      expect(r.error?.code).toBe('SANDBOX_FAILED');
      await expect.poll(() => fake.wasKilled()).toBe(true);
      expect(pool.stats().protocolViolations).toBe(1);
    });
  }

  it("the peer's timeout is the backstop: a process that never answers is killed", async () => {
    const fake = fakeProcess({ onRun: () => {} });
    const pool = poolOn(fake.handle);
    const r = await pool.run('print(1)', { limits: { timeout_ms: 10, grace_ms: 50 } });
    expect(r.error).toMatchObject({ code: 'SANDBOX_TIMEOUT', type: 'Timeout' });
    expect(fake.wasKilled()).toBe(true);
  }, 15_000);
});

describe('the sandbox process on the protocol', () => {
  it('refuses a run before init, and a malformed message: it reports why and exits', async () => {
    for (const first of [
      { type: 'run', id: 'r1', code: 'print(1)', limits: resolveLimits() },
      { type: 'init', pyodideDir: 1 },
    ]) {
      const handle = spawnNodeSandbox({
        entry: join(RUNTIME_DIR, 'process.mjs'),
        guard: join(RUNTIME_DIR, 'guard.mjs'),
        readPaths: [`${RUNTIME_DIR}/`, `${pyodideDir()}/`],
        maxOldSpaceMb: 256,
      });
      const seen: Array<{ type: string; message?: string }> = [];
      const reader = new FrameReader(
        { maxJson: 1 << 20, maxBinary: () => 0 },
        {
          onJson: (m) => {
            seen.push(m as { type: string });
            if ((m as { type: string }).type === 'hello')
              for (const c of encodeFrames(first)) handle.write(c);
          },
          onBinary: () => {},
          onViolation: () => {},
        },
      );
      handle.onData((c) => reader.push(c));
      const code = await new Promise<number | null>((r) => handle.onExit((c) => r(c)));
      expect(seen.map((m) => m.type)).toEqual(['hello', 'fatal']);
      expect(seen[1]!.message).toMatch(first.type === 'run' ? /run before init/ : /malformed message/);
      expect(code).not.toBe(0);
    }
  }, 30_000);
});
