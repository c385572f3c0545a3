/**
 * One RPC peer for every message boundary (the web-mode WebSocket, the sidecar's JSON lines):
 * request ids, pending calls, timeouts, cancellation, calls nested in an open request, events
 * and subscriptions, written once. A boundary supplies a port (how messages travel) and its
 * method table; the peer never trusts what arrives: every message is checked against
 * {@link RpcMessageSchema} first. Runs anywhere (no Node APIs), so the renderer uses it too.
 */
import { z } from 'zod';
import { AppError, ERROR_CODES, type ErrorCode } from '../contract/errors.js';

const Id = z.string().min(1).max(64);
const Name = z.string().min(1).max(200);

/** An error as it crosses a boundary. Codes the receiver does not know are mapped on arrival. */
export const WireErrorSchema = z.object({
  code: z.string().min(1).max(64),
  message: z.string().max(20_000),
  details: z.record(z.string(), z.unknown()).optional(),
});

/** An error as it crosses a boundary. */
export type WireError = z.infer<typeof WireErrorSchema>;

/**
 * The messages peers exchange. `req` with a `parent` is a call made while the other side's
 * request `parent` is open (the sidecar asking for a completion); `event` with a `parent`
 * belongs to that request (progress), without one it goes to subscribers of `event`. A `res`
 * holds exactly one of `result` and `error`; `id: null` answers a message that had no usable id.
 */
export const RpcMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('req'), id: Id, method: Name, params: z.unknown(), parent: Id.optional() }),
  z.object({
    type: z.literal('res'),
    id: Id.nullable(),
    result: z.unknown().optional(),
    error: WireErrorSchema.optional(),
  }),
  z.object({ type: z.literal('event'), event: Name, data: z.unknown(), parent: Id.optional() }),
  z.object({ type: z.literal('sub'), event: Name }),
  z.object({ type: z.literal('unsub'), event: Name }),
]);

/** One message between peers. */
export type RpcMessage = z.infer<typeof RpcMessageSchema>;

/** How messages travel: sent as plain JSON-compatible objects, received unchecked. */
export interface RpcPort {
  send(message: RpcMessage): void;
  /** Register the receiver of every message the other side sends (called once by the peer). */
  onMessage(receive: (message: unknown) => void): void;
}

/** What a handler of an incoming request knows about it. */
export interface IncomingCall {
  id: string;
  method: string;
  /** Aborted when the caller cancels, the parent request settles or the peer closes. */
  signal: AbortSignal;
  /** The `context` of this side's open call named by `parent`, when the request has one. */
  parent?: unknown;
  /** Send an event tied to this request. */
  emit(event: string, data: unknown): void;
  /** Call back into the other side while this request is open (the call names it as `parent`). */
  call(method: string, params: unknown, opts?: Omit<CallOptions, 'parent'>): Promise<unknown>;
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Give up after this long (0: never; default: the peer's `timeoutMs`). */
  timeoutMs?: number;
  /** Receives events the other side sends about this call. */
  onEvent?: (event: string, data: unknown) => void;
  /** Made available to requests the other side makes while this call is open. */
  context?: unknown;
  /** Sent as the request's `parent`. */
  parent?: string;
}

/** Options of {@link createPeer}. */
export interface PeerOptions {
  /** Prefix of this side's request ids, so both directions never collide. */
  idPrefix: string;
  /** Answers requests from the other side; throw an AppError to answer with an error. */
  handle?: (params: unknown, call: IncomingCall) => Promise<unknown>;
  /** Answers a subscription: returns its unsubscribe, or null for an event it does not know. */
  onSubscribe?: (event: string, emit: (data: unknown) => void) => (() => void) | null;
  /** Validates results by method; a result that does not fit fails the call with `malformedCode`. */
  results?: Record<string, z.ZodType>;
  /** A method the other side understands as "drop request `params.id`", sent when a call is abandoned. */
  cancelMethod?: string;
  /** Default call timeout in ms (0: none). */
  timeoutMs?: number;
  /** Code for a remote error with a code this side does not know, and for malformed results. */
  foreignCode?: ErrorCode;
  /** How an abandoned call fails on timeout. */
  timeoutError?: (method: string, ms: number) => AppError;
  /** Whether error details cross to the other side (default true). */
  sendDetails?: boolean;
  /** Called when a message breaks the protocol (it is then answered or dropped). */
  onProtocolError?: (message: string) => void;
  /** Called with what a handler threw that was not an AppError (the other side sees INTERNAL). */
  onHandlerBug?: (e: unknown) => void;
  /** Called when a call is given up on (timeout or the caller's signal), after its cancel was sent. */
  onAbandon?: (id: string) => void;
  /** Called when the other side answers a call that was already abandoned. */
  onLateAnswer?: (id: string) => void;
  /** Whether a malformed message is answered with a `res` of id null (default true); else only reported. */
  answerProtocolErrors?: boolean;
}

/** One end of a message boundary. */
export interface Peer {
  /** Call a method on the other side; rejects with an AppError. */
  call(method: string, params: unknown, opts?: CallOptions): Promise<unknown>;
  /** Call without waiting for an answer, returning the request id (for cancellation by the caller). */
  request(method: string, params: unknown, opts?: CallOptions): { id: string; result: Promise<unknown> };
  /** Listen to an event of the other side; the first listener subscribes, the last one unsubscribes. */
  subscribe(event: string, listener: (data: unknown) => void): () => void;
  /** Send the subscriptions again (after the port reconnected). */
  resubscribe(): void;
  /** Fail every open outgoing call with `error` (the connection dropped), keeping the peer usable. */
  failPending(error: AppError): void;
  /** Feed a message (the port does this). */
  receive(message: unknown): void;
  /** Number of outgoing calls awaiting an answer. */
  readonly pending: number;
  /** Whether outgoing call `id` is still open. */
  isOpen(id: string): boolean;
  /** Fail everything open, end the other side's subscriptions and refuse later calls. */
  close(error: AppError): void;
}

interface Outgoing {
  method: string;
  resolve: (value: unknown) => void;
  reject: (e: AppError) => void;
  onEvent?: (event: string, data: unknown) => void;
  context?: unknown;
  /** Aborts requests the other side made inside this call. */
  children: AbortController;
  cleanup: () => void;
}

/** How many abandoned call ids are remembered to recognise their late answers. */
const MAX_ABANDONED = 1000;

const cancelled = () => new AppError('CANCELLED', 'the call was cancelled');

/** Create a peer on `port`. */
export function createPeer(port: RpcPort, opts: PeerOptions): Peer {
  const outgoing = new Map<string, Outgoing>();
  const incoming = new Map<string, AbortController>();
  const listeners = new Map<string, Set<(data: unknown) => void>>();
  const served = new Map<string, () => void>();
  const abandoned = new Set<string>();
  let nextId = 0;
  let closedWith: AppError | null = null;
  const sendDetails = opts.sendDetails ?? true;
  const known = new Set<string>(ERROR_CODES);

  const send = (m: RpcMessage) => {
    if (!closedWith) port.send(m);
  };

  const toWire = (e: AppError): WireError =>
    sendDetails && e.details !== undefined
      ? { code: e.code, message: e.message, details: e.details }
      : { code: e.code, message: e.message };

  const fromWire = (e: WireError): AppError =>
    known.has(e.code)
      ? new AppError(e.code as ErrorCode, e.message, e.details)
      : new AppError(opts.foreignCode ?? 'INTERNAL', e.message, { ...e.details, remoteCode: e.code });

  const settle = (id: string, outcome: AppError | { value: unknown }) => {
    const entry = outgoing.get(id);
    if (!entry) return;
    outgoing.delete(id);
    entry.cleanup();
    entry.children.abort();
    if (outcome instanceof AppError) entry.reject(outcome);
    else entry.resolve(outcome.value);
  };

  const abandon = (id: string, error: AppError) => {
    if (!outgoing.has(id)) return;
    settle(id, error);
    abandoned.add(id);
    // Only for reporting late answers: a peer that never answers must not grow this forever.
    if (abandoned.size > MAX_ABANDONED) abandoned.delete(abandoned.values().next().value!);
    if (opts.cancelMethod)
      send({ type: 'req', id: `${opts.idPrefix}${++nextId}`, method: opts.cancelMethod, params: { id } });
    opts.onAbandon?.(id);
  };

  const protocolError = (message: string, id: string | null = null) => {
    opts.onProtocolError?.(message);
    if (opts.answerProtocolErrors ?? true)
      send({ type: 'res', id, error: { code: 'INVALID_INPUT', message } });
  };

  function request(method: string, params: unknown, o: CallOptions = {}) {
    const id = `${opts.idPrefix}${++nextId}`;
    const result = new Promise<unknown>((resolve, reject) => {
      if (closedWith) return reject(closedWith);
      if (o.signal?.aborted) return reject(cancelled());
      const onAbort = () => abandon(id, cancelled());
      const ms = o.timeoutMs ?? opts.timeoutMs ?? 0;
      const timer =
        ms > 0 && Number.isFinite(ms)
          ? setTimeout(
              () =>
                abandon(
                  id,
                  opts.timeoutError?.(method, ms) ??
                    new AppError('INTERNAL', `no answer to ${method} within ${ms} ms`),
                ),
              ms,
            )
          : undefined;
      outgoing.set(id, {
        method,
        resolve,
        reject,
        onEvent: o.onEvent,
        context: o.context,
        children: new AbortController(),
        cleanup: () => {
          if (timer) clearTimeout(timer);
          o.signal?.removeEventListener('abort', onAbort);
        },
      });
      o.signal?.addEventListener('abort', onAbort, { once: true });
      send({ type: 'req', id, method, params, ...(o.parent ? { parent: o.parent } : {}) });
    });
    return { id, result };
  }

  async function answer(m: Extract<RpcMessage, { type: 'req' }>) {
    if (opts.cancelMethod && m.method === opts.cancelMethod) {
      const target = (m.params as { id?: unknown } | null)?.id;
      const ctl = typeof target === 'string' ? incoming.get(target) : undefined;
      ctl?.abort();
      send({ type: 'res', id: m.id, result: { cancelled: Boolean(ctl) } });
      return;
    }
    if (!opts.handle) {
      send({ type: 'res', id: m.id, error: { code: 'NOT_FOUND', message: `no method "${m.method}"` } });
      return;
    }
    const parent = m.parent === undefined ? undefined : outgoing.get(m.parent);
    if (m.parent !== undefined && !parent) {
      send({ type: 'res', id: m.id, error: { code: 'CANCELLED', message: 'no such open request' } });
      return;
    }
    const ctl = new AbortController();
    const onParentDone = () => ctl.abort();
    parent?.children.signal.addEventListener('abort', onParentDone, { once: true });
    incoming.set(m.id, ctl);
    try {
      const result = await opts.handle(m.params, {
        id: m.id,
        method: m.method,
        signal: ctl.signal,
        parent: parent?.context,
        emit: (event, data) => send({ type: 'event', event, data, parent: m.id }),
        call: (method, params, o) =>
          request(method, params, { ...o, parent: m.id, signal: o?.signal ?? ctl.signal }).result,
      });
      send({ type: 'res', id: m.id, result: result ?? null });
    } catch (e) {
      if (!(e instanceof AppError)) opts.onHandlerBug?.(e);
      const err = e instanceof AppError ? e : new AppError('INTERNAL', 'internal error');
      send({ type: 'res', id: m.id, error: toWire(err) });
    } finally {
      incoming.delete(m.id);
      parent?.children.signal.removeEventListener('abort', onParentDone);
    }
  }

  function receive(raw: unknown) {
    if (closedWith) return;
    const parsed = RpcMessageSchema.safeParse(raw);
    if (!parsed.success) {
      const id = (raw as { id?: unknown } | null)?.id;
      if (typeof id === 'string' && outgoing.has(id)) {
        settle(id, new AppError(opts.foreignCode ?? 'INTERNAL', 'a malformed response arrived', { id }));
        return;
      }
      protocolError(`not a message: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      return;
    }
    const m = parsed.data;
    switch (m.type) {
      case 'req':
        void answer(m);
        return;
      case 'res': {
        if (m.id === null) {
          opts.onProtocolError?.(`the other side refused a message: ${m.error?.message ?? '?'}`);
          return;
        }
        const entry = outgoing.get(m.id);
        if (!entry) {
          if (abandoned.delete(m.id)) opts.onLateAnswer?.(m.id);
          return;
        }
        const hasResult = Object.hasOwn(raw as object, 'result');
        if (hasResult === (m.error !== undefined)) {
          settle(m.id, new AppError(opts.foreignCode ?? 'INTERNAL', 'a malformed response arrived'));
          return;
        }
        if (m.error) return settle(m.id, fromWire(m.error));
        const schema = opts.results?.[entry.method];
        if (!schema) return settle(m.id, { value: m.result });
        const checked = schema.safeParse(m.result);
        settle(
          m.id,
          checked.success
            ? { value: checked.data }
            : new AppError(opts.foreignCode ?? 'INTERNAL', `the ${entry.method} result is malformed`, {
                issues: checked.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`),
              }),
        );
        return;
      }
      case 'event': {
        if (m.parent !== undefined) {
          const entry = outgoing.get(m.parent);
          try {
            entry?.onEvent?.(m.event, m.data);
          } catch (e) {
            opts.onHandlerBug?.(e);
          }
          return;
        }
        for (const cb of [...(listeners.get(m.event) ?? [])]) cb(m.data);
        return;
      }
      case 'sub': {
        if (served.has(m.event)) return;
        const off = opts.onSubscribe?.(m.event, (data) => send({ type: 'event', event: m.event, data }));
        if (!off) return protocolError(`unknown event "${m.event.slice(0, 100)}"`);
        served.set(m.event, off);
        return;
      }
      case 'unsub':
        served.get(m.event)?.();
        served.delete(m.event);
        return;
    }
  }

  port.onMessage(receive);

  return {
    call: (method, params, o) => request(method, params, o).result,
    request,
    subscribe(event, listener) {
      let set = listeners.get(event);
      if (!set) {
        set = new Set();
        listeners.set(event, set);
        send({ type: 'sub', event });
      }
      set.add(listener);
      return () => {
        if (!set.delete(listener) || set.size > 0) return;
        listeners.delete(event);
        send({ type: 'unsub', event });
      };
    },
    resubscribe() {
      for (const event of listeners.keys()) send({ type: 'sub', event });
    },
    failPending(error) {
      for (const id of [...outgoing.keys()]) settle(id, error);
    },
    receive,
    get pending() {
      return outgoing.size;
    },
    isOpen: (id) => outgoing.has(id),
    close(error) {
      if (closedWith) return;
      for (const id of [...outgoing.keys()]) settle(id, error);
      for (const ctl of incoming.values()) ctl.abort();
      for (const off of served.values()) off();
      served.clear();
      closedWith = error;
    },
  };
}

/** An in-memory port pair (as VS Code's `createProtocolPair`): messages cross as JSON, asynchronously. */
export function createPortPair(): [RpcPort & { close(): void }, RpcPort & { close(): void }] {
  const make = () => {
    let receive: ((m: unknown) => void) | null = null;
    let other: { deliver(m: unknown): void } | null = null;
    let open = true;
    return {
      link(o: { deliver(m: unknown): void }) {
        other = o;
      },
      deliver(m: unknown) {
        if (open) queueMicrotask(() => receive?.(JSON.parse(JSON.stringify(m))));
      },
      port: {
        send(m: RpcMessage) {
          if (open) other?.deliver(m);
        },
        onMessage(r: (m: unknown) => void) {
          receive = r;
        },
        close() {
          open = false;
        },
      },
    };
  };
  const a = make();
  const b = make();
  a.link(b);
  b.link(a);
  return [a.port, b.port];
}
