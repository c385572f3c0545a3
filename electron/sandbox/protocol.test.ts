// The sandbox protocol on an in-memory port pair: the app's side built from the TypeScript source,
// the process's side from the generated bundle it really loads, the two joined by real frames.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../contract/errors.js';
import { createPeer, type IncomingCall, type RpcMessage } from '../rpc/index.js';
import { PROJECT_ROOT } from '../test-support/index.js';
import { MAX_LIMITS, resolveLimits } from './limits.js';
import * as app from './protocol.js';
import { encodeFrames, FrameReader } from './runtime/frames.mjs';
import * as bundle from './runtime/peer.bundle.mjs';

const RESULT: app.RunResult = {
  ok: true,
  submitted: true,
  result: '{"x":1}',
  stdout: 'hi\n',
  stderr: '',
  truncated: { stdout: false, stderr: false },
  error: null,
  host_calls: 1,
  wait_ms: 0,
  run_ms: 3,
  worker_boot_ms: 1,
};

/** One direction of the pipe: frames in, checked by the receiver's schema, calls to its peer. */
function pipe(
  schema: { safeParse(v: unknown): { success: boolean; data?: unknown } },
  toRpc: (m: never) => RpcMessage | null,
  deliver: () => (m: unknown) => void,
  refused: unknown[],
) {
  const reader = new FrameReader(
    { maxJson: 1 << 24, maxBinary: () => 0 },
    {
      onJson: (m) => {
        const checked = schema.safeParse(m);
        if (!checked.success) return refused.push(m);
        const rpc = toRpc(checked.data as never);
        if (rpc) queueMicrotask(() => deliver()(rpc));
      },
      onBinary: () => refused.push('binary'),
      onViolation: (why) => refused.push(why),
    },
  );
  return (wire: unknown) => {
    for (const c of encodeFrames(wire)) reader.push(c);
  };
}

/** The app's peer (source) and the process's peer (bundle) on one framed pipe. */
function sandboxPair(process: (params: unknown, call: IncomingCall) => Promise<unknown>) {
  const refusedByProcess: unknown[] = [];
  const refusedByApp: unknown[] = [];
  const wire: { app: unknown[]; process: unknown[] } = { app: [], process: [] };
  let appPeer: ReturnType<typeof createPeer> | null = null;
  let procPeer: ReturnType<typeof bundle.createPeer> | null = null;
  const toProcess = pipe(
    bundle.AppMessageSchema,
    bundle.wireToRpc,
    () => procPeer!.receive,
    refusedByProcess,
  );
  const toApp = pipe(app.SandboxMessageSchema, app.wireToRpc, () => appPeer!.receive, refusedByApp);
  appPeer = createPeer(
    {
      send: (m) => {
        const w = app.rpcToWire(m, 'app');
        wire.app.push(w);
        toProcess(w);
      },
      onMessage: () => {},
    },
    {
      idPrefix: app.SANDBOX_ID_PREFIX.app,
      foreignCode: 'SANDBOX_FAILED',
      sendDetails: false,
      answerProtocolErrors: false,
      handle: async (params, call) => {
        const { request } = params as { request: string };
        const { fn } = JSON.parse(request) as { fn: string };
        if (fn === 'missing') throw new AppError('NOT_FOUND', 'no such page', { secret: 'kept in the app' });
        return { fn, parent: call.parent };
      },
    },
  );
  procPeer = bundle.createPeer(
    {
      send: (m) => {
        const w = bundle.rpcToWire(m, 'process');
        wire.process.push(w);
        toApp(w);
      },
      onMessage: () => {},
    },
    {
      idPrefix: bundle.SANDBOX_ID_PREFIX.process,
      sendDetails: false,
      answerProtocolErrors: false,
      handle: process,
    },
  );
  return { appPeer, procPeer, wire, refusedByApp, refusedByProcess };
}

describe('the sandbox protocol', () => {
  it('the committed bundle is what the source builds (else: npm run build:sandbox-peer)', () => {
    const r = spawnSync(
      process.execPath,
      [join(PROJECT_ROOT, 'scripts', 'build-sandbox-peer.mjs'), '--check'],
      {
        encoding: 'utf8',
      },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('both sides agree on methods, message types and error codes', () => {
    expect(bundle.SANDBOX_PROTOCOL).toEqual(app.SANDBOX_PROTOCOL);
    expect(app.AppMessageSchema.options.map((o) => o.shape.type.value).sort()).toEqual(
      [...app.SANDBOX_PROTOCOL.appMessages].sort(),
    );
    expect(app.SandboxMessageSchema.options.map((o) => o.shape.type.value).sort()).toEqual(
      [...app.SANDBOX_PROTOCOL.sandboxMessages].sort(),
    );
    // The same messages pass and fail on both sides.
    const limits = resolveLimits();
    const samples: unknown[] = [
      { type: 'run', id: 'r1', code: 'print(1)', limits },
      {
        type: 'run',
        id: 'r1',
        code: 'print(1)',
        limits: { ...limits, timeout_ms: MAX_LIMITS.timeout_ms + 1 },
      },
      { type: 'run', id: 7, code: 'print(1)', limits },
      { type: 'host-reply', id: 'p1', result: { any: 'value' } },
      { type: 'host-reply', id: 'p1', error: { code: 'LLM_FAILED', message: 'x' } },
      { type: 'host-reply', id: 'p1', error: { code: 'E_MADE_UP', message: 'x' } },
      { type: 'host-reply', id: 'p1', result: 1, error: { code: 'NOT_FOUND', message: 'x' } },
      { type: 'cancel', id: 'r1' },
      { type: 'cancel', id: '' },
      { type: 'shutdown' },
      { type: 'shutdown', now: true },
      { type: 'hello', pid: 1, self_check: { tcp: 'blocked', unix: 'blocked' } },
      { type: 'snapshot', ms: 1, size: app.MAX_SNAPSHOT_BYTES + 1 },
      { type: 'worker-ready', ms: 2, reused: true },
      { type: 'worker-ready', ms: 2, reused: false },
      { type: 'fatal', message: 'no' },
      { type: 'result', id: 'r1', result: RESULT },
      { type: 'result', id: 'r1', result: { ...RESULT, extra: 1 } },
      { type: 'result', id: 'r1', error: { code: 'SANDBOX_LIMIT', message: 'x' } },
      { type: 'result', id: 'r1', error: { code: 'NOT_FOUND', message: 'x' } },
      { type: 'result', id: 'r1' },
      { type: 'host', id: 'p1', parent: 'r1', request: '{"fn":"get_page","args":["x"]}' },
      { type: 'host', id: 'p1', parent: 'r1', request: 'x'.repeat(app.MAX_HOST_REQUEST + 1) },
      { type: 'host', id: 'p1', seq: 7, request: '{}' },
      { type: 'eval', code: 'process.exit()' },
    ];
    const verdicts = (s: typeof app | typeof bundle) =>
      samples.map((m) => [
        s.AppMessageSchema.safeParse(m).success,
        s.SandboxMessageSchema.safeParse(m).success,
      ]);
    expect(verdicts(bundle)).toEqual(verdicts(app));
    expect(verdicts(app).map(([a, b]) => a || b)).toEqual([
      true,
      false,
      false,
      true,
      true,
      false,
      false,
      true,
      false,
      true,
      false,
      true,
      false,
      true,
      false,
      true,
      true,
      false,
      true,
      false,
      false,
      true,
      false,
      false,
      false,
    ]);
  });

  it('a run calls back to the app inside itself and returns its result', async () => {
    const seen: unknown[] = [];
    const { appPeer, wire, refusedByApp, refusedByProcess } = sandboxPair(async (params, call) => {
      seen.push(call.method, params);
      seen.push(await call.call('host', { request: '{"fn":"get_page","args":["a"]}' }));
      await call.call('host', { request: '{"fn":"missing","args":[]}' }).catch((e: unknown) => seen.push(e));
      return RESULT;
    });
    const limits = resolveLimits();
    const job = { name: 'job context' };
    await expect(appPeer.call('run', { code: 'print(1)', limits }, { context: job })).resolves.toEqual(
      RESULT,
    );
    expect(seen[0]).toBe('run');
    expect(seen[1]).toEqual({ code: 'print(1)', limits });
    // The host call names the open run; the app's handler sees the run's context.
    expect(seen[2]).toEqual({ fn: 'get_page', parent: job });
    // App errors reach the process as code and message, with no details.
    expect(seen[3]).toBeInstanceOf(bundle.AppError);
    expect(seen[3]).toMatchObject({ code: 'NOT_FOUND', message: 'no such page', details: undefined });
    expect(wire.app.map((m) => (m as { type: string }).type)).toEqual(['run', 'host-reply', 'host-reply']);
    expect(wire.process).toEqual([
      { type: 'host', id: 'p1', parent: 'r1', request: '{"fn":"get_page","args":["a"]}' },
      { type: 'host', id: 'p2', parent: 'r1', request: '{"fn":"missing","args":[]}' },
      { type: 'result', id: 'r1', result: RESULT },
    ]);
    expect(refusedByApp).toEqual([]);
    expect(refusedByProcess).toEqual([]);
  });

  it('the process answers with a sandbox error code; any other code is refused by the app', async () => {
    const { appPeer, refusedByApp } = sandboxPair(async (params) => {
      const { code } = params as { code: string };
      throw new bundle.AppError(code === 'busy' ? 'SANDBOX_FAILED' : 'NOT_FOUND', 'no');
    });
    const limits = resolveLimits();
    await expect(appPeer.call('run', { code: 'busy', limits })).rejects.toMatchObject({
      code: 'SANDBOX_FAILED',
    });
    expect(refusedByApp).toEqual([]);
    const forged = appPeer.call('run', { code: 'other', limits }, { timeoutMs: 50 });
    await expect(forged).rejects.toThrow(/no answer/);
    expect(refusedByApp).toEqual([{ type: 'result', id: 'r2', error: { code: 'NOT_FOUND', message: 'no' } }]);
  });

  it('has no place for what the protocol does not carry', () => {
    const m = (x: RpcMessage) => x;
    expect(() => app.rpcToWire(m({ type: 'sub', event: 'x' }), 'app')).toThrow(/cannot carry/);
    expect(() => app.rpcToWire(m({ type: 'event', event: 'x', data: 1 }), 'process')).toThrow(/cannot carry/);
    expect(() =>
      app.rpcToWire(m({ type: 'req', id: 'r1', method: 'host', params: {}, parent: 'p1' }), 'app'),
    ).toThrow(/cannot carry/);
    expect(() => app.rpcToWire(m({ type: 'req', id: 'p1', method: 'run', params: {} }), 'process')).toThrow(
      /cannot carry/,
    );
    expect(() =>
      app.rpcToWire(m({ type: 'res', id: null, error: { code: 'X', message: 'y' } }), 'app'),
    ).toThrow(/cannot carry/);
  });
});
