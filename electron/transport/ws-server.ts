/**
 * Web mode: the renderer's static files over HTTP and the API over a WebSocket, both on
 * 127.0.0.1 only. A browser page on another site cannot use it: the WebSocket needs the per-run
 * token (which the page reads from its URL fragment, never sent in a request line by the
 * browser), an Origin of this server, and a Host header naming 127.0.0.1/localhost (which defeats
 * DNS rebinding, where an attacker's name resolves to 127.0.0.1).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { Handlers } from '../contract/channels.js';
import { AppError } from '../contract/errors.js';
import type { ServerFrame } from '../contract/ws-frames.js';
import type { Host } from '../host.js';
import type { RpcPort } from '../rpc/index.js';
import { servePeer } from './serve-peer.js';

/** The path of the WebSocket endpoint. */
export const API_PATH = '/api';
/** Largest WebSocket message accepted (a package import is the biggest request). */
export const MAX_MESSAGE_BYTES = 24 * 1024 * 1024;

/** Options for {@link startWebServer}. */
export interface WebServerOptions {
  host: Pick<Host, 'handlers' | 'events' | 'logger'>;
  /** The built renderer (vite output); null serves the API only. */
  staticDir: string | null;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default: 32 random bytes, base64url. */
  token?: string;
}

/** A running web-mode server. */
export interface WebServer {
  port: number;
  token: string;
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** The page to open, with the token in the fragment. */
  url: string;
  /** The WebSocket endpoint for a client that has the token. */
  wsUrl: string;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** The Content-Security-Policy of web mode: nothing but this origin, and its WebSocket. */
export function webCsp(port: number): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    // blob:: attached images shown from bytes the page already holds; nothing remote.
    "img-src 'self' blob:",
    "font-src 'self'",
    `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function sameToken(given: string | null, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Start the server on 127.0.0.1. */
export async function startWebServer(opts: WebServerOptions): Promise<WebServer> {
  const token = opts.token ?? randomBytes(32).toString('base64url');
  const { handlers, events, logger } = opts.host;
  let port = 0;
  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const allowedOrigins = () => new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
  const staticRoot = opts.staticDir ? resolve(opts.staticDir) : null;

  const server = createServer((req, res) => {
    try {
      serveHttp(req, res);
    } catch (e) {
      logger.error('web server request failed', e);
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'Internal error');
      else res.destroy();
    }
  });

  function baseHeaders(res: ServerResponse) {
    res.setHeader('Content-Security-Policy', webCsp(port));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  }

  function send(res: ServerResponse, status: number, type: string, body: string | Buffer, head = false) {
    baseHeaders(res);
    res.statusCode = status;
    res.setHeader('Content-Type', type);
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(head ? undefined : body);
  }

  function serveHttp(req: IncomingMessage, res: ServerResponse) {
    if (!allowedHosts().has(req.headers.host ?? '')) {
      send(res, 403, 'text/plain; charset=utf-8', 'Forbidden: unexpected Host header.\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      send(res, 405, 'text/plain; charset=utf-8', 'Method not allowed.\n');
      return;
    }
    const head = req.method === 'HEAD';
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    if (url.pathname === API_PATH) {
      send(res, 426, 'text/plain; charset=utf-8', 'This endpoint speaks WebSocket.\n', head);
      return;
    }
    if (!staticRoot || !existsSync(join(staticRoot, 'index.html'))) {
      send(
        res,
        503,
        'text/plain; charset=utf-8',
        'The SkillDesk UI is not built yet. Run `npm run build:renderer`, then reload.\n',
        head,
      );
      return;
    }
    let rel: string;
    try {
      rel = decodeURIComponent(url.pathname);
    } catch {
      send(res, 400, 'text/plain; charset=utf-8', 'Bad path.\n', head);
      return;
    }
    const file = resolve(staticRoot, `.${normalize(`/${rel}`)}`);
    if (file !== staticRoot && !file.startsWith(staticRoot + sep)) {
      send(res, 404, 'text/plain; charset=utf-8', 'Not found.\n', head);
      return;
    }
    let target = file;
    if (!existsSync(target) || statSync(target).isDirectory()) {
      // Client-side routes fall back to the app; a missing asset is a plain 404.
      if (extname(rel) && rel !== '/') {
        send(res, 404, 'text/plain; charset=utf-8', 'Not found.\n', head);
        return;
      }
      target = join(staticRoot, 'index.html');
    }
    const type = TYPES[extname(target).toLowerCase()] ?? 'application/octet-stream';
    const body = readFileSync(target);
    res.setHeader(
      'Cache-Control',
      target.includes(`${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
    );
    send(res, 200, type, body, head);
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const reject = (status: number, text: string) => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    const host = req.headers.host ?? '';
    if (!allowedHosts().has(host)) return reject(403, 'Forbidden');
    const url = new URL(req.url ?? '/', `http://${host}`);
    if (url.pathname !== API_PATH) return reject(404, 'Not Found');
    const origin = req.headers.origin;
    if (!origin || !allowedOrigins().has(origin)) return reject(403, 'Forbidden');
    if (!sameToken(url.searchParams.get('token'), token)) return reject(401, 'Unauthorized');
    wss.handleUpgrade(req, socket, head, (ws) => serveSocket(ws, handlers));
  });

  function serveSocket(ws: WebSocket, table: Handlers) {
    let receive: (message: unknown) => void = () => {};
    const port: RpcPort = {
      send: (frame: ServerFrame) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
      },
      onMessage: (r) => {
        receive = r;
      },
    };
    const peer = servePeer(port, { handlers: table, events, logger, transport: 'ws' });
    ws.on('message', (data, isBinary) => {
      // Binary or non-JSON text is no message: the peer answers it with a protocol error.
      receive(isBinary ? undefined : parseJson(data.toString()));
    });
    ws.on('close', () => peer.close(new AppError('DISCONNECTED', 'the page closed its connection')));
    ws.on('error', (e) => logger.error('websocket error', e));
  }

  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', fail);
      ok();
    });
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  return {
    port,
    token,
    origin,
    url: `${origin}/#token=${token}`,
    wsUrl: `ws://127.0.0.1:${port}${API_PATH}?token=${encodeURIComponent(token)}`,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((ok) => wss.close(() => ok()));
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
