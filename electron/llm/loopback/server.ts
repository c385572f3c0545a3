import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError } from '../../contract/errors.js';
import {
  type LoopbackScript,
  type LoopbackScriptInput,
  parseLoopbackScript,
  type ScriptExpect,
  type ScriptTurn,
} from './script.js';
import {
  anthropicWire,
  openaiWire,
  type RequestFacts,
  type SseFrame,
  type WireFormat,
  type WireFormatId,
} from './wire.js';

/** One request the loopback server received, as tests assert on it. */
export interface RecordedRequest {
  /** 0-based arrival order. */
  index: number;
  method: string;
  path: string;
  /** `openai` / `anthropic` for completions, `models` for the model list, `other` otherwise. */
  kind: WireFormatId | 'models' | 'other';
  /** Lower-cased headers; credential values replaced by `[redacted]`. */
  headers: Record<string, string>;
  /** The parsed JSON body (undefined when there was none or it did not parse). */
  body: unknown;
  stream: boolean;
  /** The 0-based script turn that answered it, or null (exhausted, invalid, or not a completion). */
  turn: number | null;
  /** The HTTP status sent (undefined until the reply ends, or when no reply was ever sent). */
  status?: number;
  /** Why the request did not match its turn's `expect`. */
  expectation_error?: string;
  /** True when the client went away before the reply ended. */
  client_closed?: boolean;
}

/** Options of {@link startLoopbackProvider}. */
export interface LoopbackOptions {
  /** Port on 127.0.0.1 (0, the default, picks a free one). */
  port?: number;
  /** The scripted replies: a parsed script, or raw input validated here. */
  script: LoopbackScript | LoopbackScriptInput;
  /** Called when a reply has ended (or the client left), e.g. to log it. */
  onRequest?: (req: RecordedRequest) => void;
}

/** A running loopback provider. */
export interface LoopbackProvider {
  /** Base URL for clients, ending in `/v1` (also accepted without it). */
  url: string;
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  port: number;
  /** Everything received so far, in order. */
  requests: RecordedRequest[];
  /** Script turns not yet consumed. */
  remaining(): number;
  /** Stop listening and drop open connections (pending delays and hangs end at once). */
  close(): Promise<void>;
}

const REDACTED_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'cookie',
]);

const MAX_BODY = 10 * 1024 * 1024;

/**
 * Start an in-process fake LLM provider on 127.0.0.1 speaking the real OpenAI chat-completions
 * and Anthropic Messages wire formats (JSON and SSE), replying from a script of turns consumed
 * in order, and recording every request.
 */
export async function startLoopbackProvider(opts: LoopbackOptions): Promise<LoopbackProvider> {
  const script = parseLoopbackScript(toInput(opts.script));
  const requests: RecordedRequest[] = [];
  const live = new Set<AbortController>();
  let nextTurn = 0;
  let idCounter = 0;
  const nextId = (prefix: string) => `${prefix}lb${String(++idCounter).padStart(6, '0')}`;

  const server = createServer((req, res) => {
    const gone = new AbortController();
    live.add(gone);
    res.on('close', () => {
      live.delete(gone);
      gone.abort();
    });
    handle(req, res, gone.signal).catch((e: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `loopback: ${String(e)}`, type: 'server_error' } }));
      } else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse, gone: AbortSignal): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route = url.pathname.replace(/^\/v1(?=\/)/, '').replace(/\/+$/, '');
    const method = req.method ?? 'GET';
    const wire: WireFormat =
      route === '/messages' || (route !== '/chat/completions' && req.headers['anthropic-version'])
        ? anthropicWire
        : openaiWire;
    const raw = await readBody(req);
    let body: unknown;
    let bodyError: string | undefined;
    if (raw.length > MAX_BODY) bodyError = 'request body too large';
    else if (raw.length) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch (e) {
        bodyError = `We could not parse the JSON body of your request. (${(e as Error).message})`;
      }
    }
    const kind: RecordedRequest['kind'] =
      route === '/chat/completions'
        ? 'openai'
        : route === '/messages'
          ? 'anthropic'
          : route === '/models'
            ? 'models'
            : 'other';
    const rec: RecordedRequest = {
      index: requests.length,
      method,
      path: url.pathname + url.search,
      kind,
      headers: redact(req.headers),
      body,
      stream: isObj(body) && body.stream === true,
      turn: null,
    };
    requests.push(rec);
    res.on('close', () => {
      if (res.headersSent) rec.status = res.statusCode;
      if (!res.writableEnded) rec.client_closed = true;
      opts.onRequest?.(rec);
    });
    const requestId = nextId('req_');
    const fail = (status: number, err?: { message?: string; type?: string; code?: string }, headers = {}) =>
      sendJson(res, status, wire.errorBody(status, err, requestId), {
        [wire.requestIdHeader]: requestId,
        ...headers,
      });

    if (kind === 'models') {
      if (method !== 'GET') return fail(405, { message: `Method ${method} not allowed on ${url.pathname}` });
      // As the real APIs do: a model list is no way to find out whether a key works without one.
      if (script.apiKey && credential(req) !== script.apiKey) return fail(401);
      return sendJson(res, 200, modelList(script.models, wire.id), { [wire.requestIdHeader]: requestId });
    }
    if (kind === 'other') {
      return fail(404, {
        message: `Unknown request URL: ${method} ${url.pathname}`,
        type: 'invalid_request_error',
      });
    }
    if (method !== 'POST') return fail(405, { message: `Method ${method} not allowed on ${url.pathname}` });
    if (script.apiKey && credential(req) !== script.apiKey) return fail(401);
    if (bodyError) return fail(raw.length > MAX_BODY ? 413 : 400, { message: bodyError });
    if (!isObj(body)) return fail(400, { message: 'The request body must be a JSON object.' });
    const invalid = wire.invalid(body);
    if (invalid) return fail(400, { message: invalid, type: 'invalid_request_error' });

    const facts = wire.facts(body);
    if (script.strictModels && typeof body.model === 'string' && !script.models.includes(body.model)) {
      // Ollama's words for a model that was never pulled; no scripted turn is used up.
      return fail(404, {
        message: `model "${body.model}" not found, try pulling it first`,
        type: 'not_found_error',
      });
    }
    const turnIndex = nextTurn;
    const turn = script.turns[turnIndex];
    if (!turn) {
      return fail(500, {
        message: `loopback provider: script exhausted — all ${script.turns.length} scripted turn(s) were used; no reply for request #${rec.index + 1}`,
        type: wire.id === 'openai' ? 'server_error' : 'api_error',
      });
    }
    nextTurn++;
    rec.turn = turnIndex;
    const mismatch = turn.expect ? checkExpect(turn.expect, wire.id, facts) : undefined;
    if (mismatch) {
      rec.expectation_error = mismatch;
      return fail(400, {
        message: `loopback provider: request does not match script turn ${turnIndex + 1}: ${mismatch}`,
        type: 'invalid_request_error',
      });
    }

    if (turn.hang) return void (await waitUntil(gone));
    if (turn.delay_ms && !(await sleep(turn.delay_ms, gone))) return;
    if (turn.status !== undefined) return fail(turn.status, turn.error, turn.headers);

    const ctx = { facts, nextId, created: Math.floor(Date.now() / 1000) };
    const headers = { [wire.requestIdHeader]: requestId, ...turn.headers };
    if (!facts.stream) return sendJson(res, 200, wire.complete(turn, ctx), headers);
    await streamReply(res, wire, turn, wire.frames(turn, ctx), headers, gone);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      reject(
        e.code === 'EADDRINUSE'
          ? new AppError('USAGE', `Port ${opts.port} is already in use: choose another --port`, {
              port: opts.port,
            })
          : e,
      );
    });
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  let closing: Promise<void> | undefined;

  return {
    url: `${origin}/v1`,
    origin,
    port,
    requests,
    remaining: () => script.turns.length - nextTurn,
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const c of live) c.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** Accept the normal form too (re-validated: defaults are idempotent). */
function toInput(s: LoopbackOptions['script']): unknown {
  if (Array.isArray(s) || !('apiKey' in s)) return s;
  return {
    turns: s.turns,
    models: s.models,
    ...(s.apiKey ? { api_key: s.apiKey } : {}),
    ...(s.strictModels ? { strict_models: true } : {}),
  };
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      // Keep reading past the limit (so the client sees our 413) but stop storing.
      if (size <= MAX_BODY + 1) parts.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

function redact(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    out[k] = REDACTED_HEADERS.has(k) ? '[redacted]' : Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function credential(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ')) return auth.slice(7);
  const key = req.headers['x-api-key'];
  return typeof key === 'string' ? key : undefined;
}

function checkExpect(expect: ScriptExpect, format: WireFormatId, facts: RequestFacts): string | undefined {
  if (expect.format && expect.format !== format) return `expected an ${expect.format} request, got ${format}`;
  if (expect.model !== undefined && expect.model !== facts.model) {
    return `expected model "${expect.model}", got "${facts.model}"`;
  }
  if (expect.stream !== undefined && expect.stream !== facts.stream) {
    return `expected stream=${expect.stream}, got stream=${facts.stream}`;
  }
  const contains: Array<[string | undefined, string, string]> = [
    [expect.last_user_contains, facts.lastUser, 'the last user message'],
    [expect.system_contains, facts.system, 'the system prompt'],
    [expect.tool_result_contains, facts.lastToolResult, 'the last tool result'],
  ];
  for (const [needle, hay, what] of contains) {
    if (needle !== undefined && !hay.includes(needle)) {
      return `${what} does not contain ${JSON.stringify(needle)} (it was ${JSON.stringify(hay.slice(0, 200))})`;
    }
  }
  const missing = (expect.tools ?? []).filter((t) => !facts.tools.includes(t));
  if (missing.length)
    return `tools not offered: ${missing.join(', ')} (offered: ${facts.tools.join(', ') || 'none'})`;
  return undefined;
}

function modelList(models: string[], format: WireFormatId): unknown {
  if (format === 'anthropic') {
    return {
      data: models.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' })),
      has_more: false,
      first_id: models[0] ?? null,
      last_id: models.at(-1) ?? null,
    };
  }
  return {
    object: 'list',
    data: models.map((id) => ({ id, object: 'model', created: 1735689600, owned_by: 'skilldesk-loopback' })),
  };
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

async function streamReply(
  res: ServerResponse,
  wire: WireFormat,
  turn: ScriptTurn,
  frames: SseFrame[],
  headers: Record<string, string>,
  gone: AbortSignal,
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers,
  });
  res.flushHeaders();
  // A scripted mid-stream error replaces the reply's ending (finish, usage, [DONE] / message_stop).
  const body = turn.stream_error ? frames.filter((f) => f.kind !== 'tail') : frames;
  let deltas = 0;
  for (const frame of body) {
    if (frame.kind === 'delta') {
      if (turn.hang_after !== undefined && deltas >= turn.hang_after) break;
      deltas++;
    }
    if (gone.aborted) return;
    res.write(frame.data);
    if (turn.chunk_delay_ms && !(await sleep(turn.chunk_delay_ms, gone))) return;
  }
  if (turn.hang_after !== undefined) {
    // Stall without ending the response until the client gives up or the server closes.
    await waitUntil(gone);
    return;
  }
  if (turn.stream_error) res.write(wire.streamError(turn.stream_error));
  res.end();
}

function waitUntil(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** Resolves true after `ms`, or false as soon as the client is gone. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
