/**
 * `skilldesk mcp serve --http PORT`: the same MCP server over Streamable HTTP, on loopback only,
 * behind a per-run bearer token, with Host and Origin checked (no DNS rebinding from a web page).
 * A client that initializes gets a session (`Mcp-Session-Id`): its server and transport live
 * between requests, so a request costs what it costs over stdio and the session's GET stream hears
 * `list_changed`. A request without a session (the stateless 2026-07-28 protocol, or a client that
 * never initializes) gets a fresh server over the shared core client and served catalog. A 401 says `WWW-Authenticate: Bearer` (so a client asks for a token instead of starting
 * an OAuth flow) and tells a missing token from a wrong one; the scheme is case-insensitive.
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { GrantedFolder } from '../contract/chat-files.js';
import { AppError } from '../contract/errors.js';
import type { CoreClient } from '../transport/index.js';
import { ServedCatalog } from './catalog.js';
import { MODERN_PROTOCOL_VERSION } from './modern.js';
import { createSkillsMcpServer } from './server.js';

/** A running HTTP endpoint. */
export interface McpHttpEndpoint {
  url: string;
  token: string;
  close(): Promise<void>;
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function refuse(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null }));
}

/** Why a request's `Authorization` does not carry the token, or null when it does. */
export function bearerProblem(header: string | undefined, token: string): 'missing' | 'wrong' | null {
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!header?.trim()) return 'missing';
  if (!m) return /^\s*bearer\s*$/i.test(header) ? 'missing' : 'wrong';
  return sameToken(m[1]!, token) ? null : 'wrong';
}

/**
 * The SDK's transport refuses protocol versions it does not know in `MCP-Protocol-Version`; a
 * 2026-07-28 request is answered statelessly (see `modern.ts`), so that header is taken off
 * before the transport reads it.
 */
function dropModernVersionHeader(req: IncomingMessage): void {
  if (req.headers['mcp-protocol-version'] !== MODERN_PROTOCOL_VERSION) return;
  delete req.headers['mcp-protocol-version'];
  const raw = req.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) {
    if (raw[i]!.toLowerCase() === 'mcp-protocol-version') raw.splice(i, 2);
  }
}

/** Sessions kept at most; past it the one idle longest is closed (its client starts a new one). */
const MAX_SESSIONS = 64;
/** A session unused this long is closed. */
const SESSION_IDLE_MS = 60 * 60 * 1000;
/** The largest request body read (the SDK's own limit for a JSON-RPC message). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

interface Session {
  transport: StreamableHTTPServerTransport;
  close(): void;
  last: number;
}

/** The body of a POST as JSON, or a reason it is not; at most {@link MAX_BODY_BYTES}. */
async function readJson(
  req: IncomingMessage,
): Promise<{ ok: true; value: unknown } | { ok: false; status: number; message: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return { ok: false, status: 413, message: 'request body over 4 MB' };
    chunks.push(chunk as Buffer);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return { ok: false, status: 400, message: 'parse error: the body is not JSON' };
  }
}

const isInitialize = (body: unknown): boolean =>
  (Array.isArray(body) ? body : [body]).some(
    (m) => !!m && typeof m === 'object' && (m as { method?: unknown }).method === 'initialize',
  );

/** Serve MCP on `http://127.0.0.1:PORT/mcp` (PORT 0: any free port). */
export async function serveMcpHttp(
  client: CoreClient,
  opts: { port: number; version: string; token?: string; folders?: GrantedFolder[] },
): Promise<McpHttpEndpoint> {
  // A fixed token (for a client's config file) comes from the environment, never a flag, so it
  // does not show in the process list.
  const fixed = opts.token ?? process.env.SKILLDESK_MCP_TOKEN;
  if (fixed !== undefined && !/^[\x21-\x7e]{16,}$/.test(fixed)) {
    throw new AppError(
      'USAGE',
      'SKILLDESK_MCP_TOKEN must be at least 16 printable characters without spaces',
    );
  }
  const token = fixed ?? randomBytes(24).toString('base64url');
  const catalog = new ServedCatalog(client);
  // Built while the endpoint starts listening, not on the first client's request, then followed
  // so a `subscriptions/listen` stream hears of changes. The search index warms up alongside (both
  // in slices), so the first search_skills does not wait for the whole catalog's listing.
  void catalog.current().catch(() => {});
  void client.call('skills/warm-match', {}).catch(() => {});
  const unwatch = catalog.watch(1000);
  const sessions = new Map<string, Session>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const s of [...sessions.values()]) if (now - s.last > SESSION_IDLE_MS) s.close();
  }, 60_000);
  sweep.unref();
  /** A new session's transport, connected to its own server; kept once the client initialized. */
  const openSession = async (): Promise<StreamableHTTPServerTransport> => {
    if (sessions.size >= MAX_SESSIONS) {
      const oldest = [...sessions.values()].sort((a, b) => a.last - b.last)[0];
      oldest?.close();
    }
    const mcp = createSkillsMcpServer(client, { version: opts.version, catalog, folders: opts.folders });
    let id: string | null = null;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        id = sid;
        sessions.set(sid, { transport, close: end, last: Date.now() });
      },
      onsessionclosed: () => end(),
    });
    let ended = false;
    function end(): void {
      if (ended) return;
      ended = true;
      if (id) sessions.delete(id);
      void transport.close();
      void mcp.close();
    }
    transport.onclose = end;
    await mcp.connect(transport);
    return transport;
  };
  let port = opts.port;
  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== '/mcp') return refuse(res, 404, 'not found: the endpoint is /mcp');
      if (!allowedHosts().has(String(req.headers.host))) return refuse(res, 403, 'forbidden host');
      const origin = req.headers.origin;
      if (origin && !allowedHosts().has(origin.replace(/^https?:\/\//, '')))
        return refuse(res, 403, 'forbidden origin');
      const problem = bearerProblem(req.headers.authorization, token);
      if (problem === 'missing') {
        return refuse(
          res,
          401,
          'no bearer token: send "Authorization: Bearer <token>" with the token printed when the server started',
          { 'www-authenticate': 'Bearer realm="skilldesk"' },
        );
      }
      if (problem === 'wrong') {
        return refuse(
          res,
          401,
          'wrong bearer token: it is not the token printed when this server started (a new one is made at each start unless SKILLDESK_MCP_TOKEN is set)',
          { 'www-authenticate': 'Bearer realm="skilldesk", error="invalid_token"' },
        );
      }
      dropModernVersionHeader(req);
      const sid = req.headers['mcp-session-id'];
      if (typeof sid === 'string' && sid) {
        const session = sessions.get(sid);
        if (!session) {
          return refuse(
            res,
            404,
            'unknown session: it ended or this server restarted; send initialize again to start a new one',
          );
        }
        session.last = Date.now();
        if (req.method !== 'POST') return session.transport.handleRequest(req, res);
      }
      let parsed: unknown;
      if (req.method === 'POST') {
        // Read here once: the SDK's adapter would otherwise stream the body into a web Request.
        const body = await readJson(req);
        if (!body.ok) return refuse(res, body.status, body.message);
        parsed = body.value;
        const session = typeof sid === 'string' && sid ? sessions.get(sid) : undefined;
        if (session) return session.transport.handleRequest(req, res, parsed);
        if (isInitialize(parsed)) {
          const transport = await openSession();
          return transport.handleRequest(req, res, parsed);
        }
      }
      const mcp = createSkillsMcpServer(client, { version: opts.version, catalog, folders: opts.folders });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      await transport.handleRequest(req, res, parsed);
    })().catch((e) => {
      if (!res.headersSent) refuse(res, 500, (e as Error).message);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => resolve());
  });
  port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    token,
    close: () =>
      new Promise((r) => {
        unwatch();
        clearInterval(sweep);
        for (const s of [...sessions.values()]) s.close();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
