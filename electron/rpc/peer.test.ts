import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { AppError } from '../contract/errors.js';
import { createPeer, createPortPair, type PeerOptions, type RpcMessage } from './peer.js';

/** Two peers on an in-memory port pair; `sent` records what each side put on the wire. */
function pair(a: Partial<PeerOptions> = {}, b: Partial<PeerOptions> = {}) {
  const [pa, pb] = createPortPair();
  const sent: { a: RpcMessage[]; b: RpcMessage[] } = { a: [], b: [] };
  const tap = (port: typeof pa, log: RpcMessage[]) => ({
    send: (m: RpcMessage) => {
      log.push(m);
      port.send(m);
    },
    onMessage: port.onMessage,
  });
  const left = createPeer(tap(pa, sent.a), { idPrefix: 'a', ...a });
  const right = createPeer(tap(pb, sent.b), { idPrefix: 'b', ...b });
  return { left, right, sent, ports: [pa, pb] as const };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('createPeer', () => {
  it('calls the other side and returns its result, validated by method', async () => {
    const { left } = pair(
      { results: { add: z.object({ sum: z.number() }) } },
      { handle: async (p) => ({ sum: (p as { x: number; y: number }).x + (p as { y: number }).y }) },
    );
    await expect(left.call('add', { x: 1, y: 2 })).resolves.toEqual({ sum: 3 });
    expect(left.pending).toBe(0);
  });

  it('rejects a result that does not fit its schema', async () => {
    const { left } = pair(
      { results: { add: z.object({ sum: z.number() }) }, foreignCode: 'SIDECAR_FAILED' },
      { handle: async () => ({ sum: 'three' }) },
    );
    await expect(left.call('add', {})).rejects.toMatchObject({
      code: 'SIDECAR_FAILED',
      message: 'the add result is malformed',
    });
  });

  it('rebuilds AppErrors, maps unknown codes, and hides what a bug threw', async () => {
    const bug = vi.fn();
    const { left } = pair(
      { foreignCode: 'SIDECAR_FAILED' },
      {
        onHandlerBug: bug,
        handle: async (_p, call) => {
          if (call.method === 'missing') throw new AppError('NOT_FOUND', 'gone', { name: 'x' });
          if (call.method === 'weird')
            throw Object.assign(new AppError('INTERNAL', 'x'), { code: 'E_WEIRD' });
          throw new TypeError('secret stack');
        },
      },
    );
    await expect(left.call('missing', {})).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'gone',
      details: { name: 'x' },
    });
    await expect(left.call('weird', {})).rejects.toMatchObject({
      code: 'SIDECAR_FAILED',
      details: { remoteCode: 'E_WEIRD' },
    });
    const err = await left.call('crash', {}).catch((e: AppError) => e);
    expect(err).toMatchObject({ code: 'INTERNAL', message: 'internal error' });
    expect(bug).toHaveBeenCalledWith(expect.any(TypeError));
  });

  it('keeps error details on its side when told to', async () => {
    const { left } = pair(
      {},
      {
        sendDetails: false,
        handle: async () => {
          throw new AppError('LLM_FAILED', 'no', { apiKeyHint: 'sk-…' });
        },
      },
    );
    const err = (await left.call('x', {}).catch((e) => e)) as AppError;
    expect(err.details).toBeUndefined();
  });

  it('times out, tells the other side to let go, and reports the late answer', async () => {
    let seen: AbortSignal | undefined;
    const late = vi.fn();
    const { left, sent } = pair(
      {
        cancelMethod: 'cancel',
        onLateAnswer: late,
        timeoutError: (m, ms) => new AppError('SIDECAR_UNAVAILABLE', `${m} took over ${ms} ms`),
      },
      {
        cancelMethod: 'cancel',
        handle: (_p, call) =>
          new Promise((resolve) => {
            seen = call.signal;
            call.signal.addEventListener('abort', () => resolve('stopped'));
          }),
      },
    );
    await expect(left.call('slow', {}, { timeoutMs: 20 })).rejects.toMatchObject({
      code: 'SIDECAR_UNAVAILABLE',
      message: 'slow took over 20 ms',
    });
    await tick();
    await tick();
    expect(seen?.aborted).toBe(true);
    expect(sent.a.at(-1)).toMatchObject({ type: 'req', method: 'cancel', params: { id: 'a1' } });
    expect(sent.b).toContainEqual({ type: 'res', id: 'a2', result: { cancelled: true } });
    expect(late).toHaveBeenCalledWith('a1');
  });

  it('cancels with the caller’s signal', async () => {
    const { left } = pair({}, { handle: () => new Promise(() => {}) });
    const abort = new AbortController();
    const p = left.call('forever', {}, { signal: abort.signal });
    abort.abort();
    await expect(p).rejects.toMatchObject({ code: 'CANCELLED' });
    const already = AbortSignal.abort();
    await expect(left.call('forever', {}, { signal: already })).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(left.pending).toBe(0);
  });

  it('lets the callee call back inside the open request and send it progress', async () => {
    const progress: unknown[] = [];
    const { left } = pair(
      {
        handle: async (p, call) => {
          expect(call.parent).toEqual({ user: 'ann' });
          return `completed ${(p as { prompt: string }).prompt}`;
        },
      },
      {
        handle: async (_p, call) => {
          call.emit('progress', { done: 1, total: 2 });
          const text = await call.call('lm.complete', { prompt: 'hi' });
          call.emit('progress', { done: 2, total: 2 });
          return { text };
        },
      },
    );
    const r = await left.call(
      'execute',
      {},
      { context: { user: 'ann' }, onEvent: (event, data) => progress.push([event, data]) },
    );
    expect(r).toEqual({ text: 'completed hi' });
    expect(progress).toEqual([
      ['progress', { done: 1, total: 2 }],
      ['progress', { done: 2, total: 2 }],
    ]);
  });

  it('refuses a nested call whose parent is no longer open', async () => {
    const { right } = pair({ handle: async () => 'never' });
    await expect(right.call('lm.complete', {}, { parent: 'a99' })).rejects.toMatchObject({
      code: 'CANCELLED',
      message: 'no such open request',
    });
  });

  it('subscribes once per event, unsubscribes with the last listener, and renews', async () => {
    const emitters = new Map<string, (d: unknown) => void>();
    const offs = vi.fn();
    const { left, right, sent } = pair(
      {},
      {
        onSubscribe: (event, emit) => {
          if (event !== 'skills/changed') return null;
          emitters.set(event, emit);
          return offs;
        },
      },
    );
    const got: unknown[] = [];
    const off1 = left.subscribe('skills/changed', (d) => got.push(['1', d]));
    const off2 = left.subscribe('skills/changed', (d) => got.push(['2', d]));
    await tick();
    emitters.get('skills/changed')!({ n: 1 });
    await tick();
    expect(got).toEqual([
      ['1', { n: 1 }],
      ['2', { n: 1 }],
    ]);
    off1();
    off2();
    await tick();
    expect(offs).toHaveBeenCalledTimes(1);
    expect(sent.a.filter((m) => m.type === 'sub')).toHaveLength(1);

    const errors: string[] = [];
    const { left: l2 } = pair({ onProtocolError: (m) => errors.push(m) }, { onSubscribe: () => null });
    l2.subscribe('no/such', () => {});
    await tick();
    await tick();
    expect(errors).toEqual(['the other side refused a message: unknown event "no/such"']);
    void right;
  });

  it('answers a malformed message with a protocol error, and fails a call whose answer is malformed', async () => {
    const errors: string[] = [];
    const { left, right, sent } = pair({}, { onProtocolError: (m) => errors.push(m) });
    right.receive({ type: 'req', id: 7 });
    right.receive('not an object');
    expect(errors).toHaveLength(2);
    expect(sent.b.every((m) => m.type === 'res' && m.id === null && m.error?.code === 'INVALID_INPUT')).toBe(
      true,
    );
    const { id, result } = left.request('x', {});
    left.receive({ type: 'res', id, result: 1, error: { code: 'NOT_FOUND', message: 'both' } });
    await expect(result).rejects.toMatchObject({ message: 'a malformed response arrived' });
  });

  it('fails pending calls on a dropped connection, and refuses everything once closed', async () => {
    const { left } = pair({}, { handle: () => new Promise(() => {}) });
    const a = left.call('x', {});
    left.failPending(new AppError('DISCONNECTED', 'dropped'));
    await expect(a).rejects.toMatchObject({ code: 'DISCONNECTED' });
    const b = left.call('x', {});
    left.close(new AppError('SIDECAR_UNAVAILABLE', 'exited'));
    await expect(b).rejects.toMatchObject({ code: 'SIDECAR_UNAVAILABLE' });
    await expect(left.call('x', {})).rejects.toMatchObject({ code: 'SIDECAR_UNAVAILABLE' });
  });
});
