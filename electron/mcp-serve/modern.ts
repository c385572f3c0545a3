/**
 * MCP 2026-07-28 (the stateless revision) beside the handshake-era versions the SDK speaks.
 *
 * The installed SDK knows versions up to 2025-11-25 only, so the revision's wire differences are
 * made here, around the transport, where every message passes: a request is modern when its
 * `_meta` carries `io.modelcontextprotocol/protocolVersion` (no `initialize` came first, none is
 * needed: the SDK's server answers any request); its result then gets `resultType: "complete"` and,
 * for the cacheable methods, the `ttlMs`/`cacheScope` hints. Older clients see exactly what the SDK
 * sends them.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

/** The stateless revision this adapter speaks. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';
/** The handshake-era versions the SDK negotiates through `initialize`. */
export const HANDSHAKE_PROTOCOL_VERSIONS = SUPPORTED_PROTOCOL_VERSIONS;
/** The error a modern request naming a version this server does not speak gets (2026-07-28). */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** Where a listen stream's messages name the `subscriptions/listen` request they belong to. */
export const SUBSCRIPTION_ID_META = 'io.modelcontextprotocol/subscriptionId';
/** Where a discover result carries the server's identity. */
export const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';
/** Where a modern request says its version. */
export const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';

/** Cache hints per cacheable method: how long a client may reuse a result, and for whom. */
export interface CacheHint {
  ttlMs: number;
  cacheScope: 'private' | 'public';
}

/**
 * The skill catalog is the user's own (so `private`); it changes when a skill is imported, saved or
 * deleted, which a handshake-era session hears as `list_changed` and a modern one, having no push
 * channel, only through these TTLs — so the catalog's are short and the static tool list's long.
 */
export const CACHE_HINTS: Record<string, CacheHint> = {
  'server/discover': { ttlMs: 3_600_000, cacheScope: 'private' },
  'tools/list': { ttlMs: 3_600_000, cacheScope: 'private' },
  'prompts/list': { ttlMs: 3_600_000, cacheScope: 'private' },
  'resources/templates/list': { ttlMs: 3_600_000, cacheScope: 'private' },
  'resources/list': { ttlMs: 30_000, cacheScope: 'private' },
  'resources/read': { ttlMs: 30_000, cacheScope: 'private' },
  'skills/list': { ttlMs: 30_000, cacheScope: 'private' },
  'skills/get': { ttlMs: 30_000, cacheScope: 'private' },
};

/** The protocol version a request's `_meta` names, if it is a modern (stateless) request. */
export function modernVersionOf(message: unknown): string | null {
  const m = message as { method?: unknown; params?: { _meta?: Record<string, unknown> } };
  const v = m?.params?._meta?.[PROTOCOL_VERSION_META];
  return typeof m?.method === 'string' && typeof v === 'string' ? v : null;
}

/**
 * Wrap a server transport so modern requests get modern results. Request ids are remembered from
 * arrival to reply only, so the wrapper holds no state across requests. Handlers already set on
 * the inner transport (a caller's `onclose`) keep being called.
 */
export function modernTransport(inner: Transport): Transport {
  const pending = new Map<string | number, string>();
  const outer: Transport = {
    start: () => inner.start(),
    close: () => inner.close(),
    send: (message, options) => {
      const r = message as { id?: string | number; result?: Record<string, unknown>; method?: string };
      const method = r.id !== undefined && r.method === undefined ? pending.get(r.id) : undefined;
      if (method !== undefined) {
        pending.delete(r.id!);
        if (r.result) {
          const hint = CACHE_HINTS[method];
          message = {
            ...message,
            result: { resultType: 'complete', ...hint, ...r.result },
          } as JSONRPCMessage;
        }
      }
      return inner.send(message, options);
    },
  };
  Object.defineProperty(outer, 'sessionId', { get: () => inner.sessionId });
  if (inner.setProtocolVersion) outer.setProtocolVersion = (v) => inner.setProtocolVersion!(v);
  const prevClose = inner.onclose;
  const prevError = inner.onerror;
  inner.onclose = () => {
    prevClose?.();
    outer.onclose?.();
  };
  inner.onerror = (e) => {
    prevError?.(e);
    outer.onerror?.(e);
  };
  inner.onmessage = (message, extra) => {
    const m = message as { id?: string | number; method?: string };
    const version = modernVersionOf(message);
    if (m.id !== undefined && m.method && version) {
      // A version of neither era: say which ones are served, so the client can pick one.
      if (version !== MODERN_PROTOCOL_VERSION && !HANDSHAKE_PROTOCOL_VERSIONS.includes(version)) {
        void inner.send({
          jsonrpc: '2.0',
          id: m.id,
          error: {
            code: UNSUPPORTED_PROTOCOL_VERSION,
            message: `Unsupported protocol version ${version}; this server speaks ${MODERN_PROTOCOL_VERSION} (stateless) and ${HANDSHAKE_PROTOCOL_VERSIONS.join(', ')} (initialize)`,
            data: {
              supported: [MODERN_PROTOCOL_VERSION, ...HANDSHAKE_PROTOCOL_VERSIONS],
              requested: version,
            },
          },
        });
        return;
      }
      pending.set(m.id, m.method);
    }
    outer.onmessage?.(message, extra);
  };
  return outer;
}
