import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { AppError } from '../../contract/errors.js';
import {
  type GateTarget,
  gateTarget,
  type HttpGateOptions,
  type HttpLogEntry,
  httpRequest,
} from '../../sandbox/index.js';

/** Largest answer of a plain (non-tunnelled) request, which the gate holds whole. */
const PLAIN_MAX_BYTES = 32 * 1024 * 1024;

/**
 * The native sandbox's only way out: an HTTP proxy in the main process, reached from inside the
 * sandbox through one Unix socket bound into it. The sandbox keeps its own empty network namespace
 * (no route anywhere, no DNS); inside it a small forwarder, forked by the interpreter's start-up
 * before it becomes the script, listens on a loopback port and carries each connection to that
 * socket, and `HTTP_PROXY`/`HTTPS_PROXY` name the port, so `urllib`, `requests`, `httpx` and pip
 * use it without being told. The proxy applies the `http_request` gate itself, not a copy of its
 * rules: a CONNECT tunnel or a proxied request goes only to a granted host, the name resolved
 * here and every address checked (internal addresses refused unless granted as addresses), the
 * connection pinned to the checked address, redirects of plain-HTTP requests checked per hop, sizes
 * and time bounded, and every attempt logged (refusals with `refused_host`) like Pyodide's.
 */

/** Where the proxy's socket sits inside the sandbox. */
export const NATIVE_PROXY_SOCKET = '/run/skilldesk/net/proxy.sock';

/** Connections the proxy holds open at once for one run (more wait in the forwarder's backlog). */
const MAX_OPEN_CONNECTIONS = 64;

/** A running proxy for one run. */
export interface NativeNetProxy {
  /** The Unix socket's host path, to bind into the sandbox at {@link NATIVE_PROXY_SOCKET}. */
  socketPath: string;
  /** Stop it: every open tunnel ends (and is logged), the socket and its folder are removed. */
  close(): Promise<void>;
}

/** What the client is told, as one header-safe line. */
const reasonLine = (s: string) =>
  s
    .replace(/[^\x20-\x7e]+/g, ' ')
    .trim()
    .slice(0, 500) || 'Refused';

/** The HTTP status a gate error becomes for the client in the sandbox. */
function statusOf(e: unknown): number {
  const code = e instanceof AppError ? e.code : '';
  if (code === 'FORBIDDEN') return 403;
  if (code === 'TOO_LARGE') return 413;
  if (code === 'SANDBOX_TIMEOUT') return 504;
  if (code === 'INVALID_INPUT') return 400;
  return 502;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Hop-by-hop headers, never passed on (the proxy frames its own answers). */
const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'upgrade',
]);

/**
 * Start the proxy for one run, with the gate's options (grants, limits, refusal words, log). It
 * listens on a Unix socket in a fresh private folder (mode 0700); nothing else can reach it.
 */
export async function startNetProxy(gate: HttpGateOptions): Promise<NativeNetProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'skilldesk-net-'));
  const socketPath = join(dir, 'proxy.sock');
  const sockets = new Set<Duplex>();
  // Open tunnels, each with the function that ends it and logs what it did (once).
  const tunnels = new Set<(why?: string) => void>();
  const server = createServer({ requestTimeout: gate.timeoutMs ?? 15_000 });
  server.maxConnections = MAX_OPEN_CONNECTIONS;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('clientError', (_e, s) => s.destroy());
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    client.on('error', () => {});
    void tunnel(req.url ?? '', client, head);
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void forward(req, res);
  });

  /** A CONNECT tunnel: the gate decides, then bytes flow to the checked address, bounded. */
  async function tunnel(authority: string, client: Duplex, head: Buffer) {
    const refuse = (status: number, why: string) => {
      const line = reasonLine(why);
      client.end(
        `HTTP/1.1 ${status} ${line}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(line)}\r\nConnection: close\r\n\r\n${line}`,
      );
    };
    if (!/^(\[[0-9a-fA-F:.]+\]|[^\s:[\]/@]+):\d{1,5}$/.test(authority)) {
      refuse(400, 'CONNECT needs host:port');
      return;
    }
    // As a URL would name it (no :443), so a refusal names the host as the chat's grants do.
    const url = `https://${authority.replace(/:443$/, '')}`;
    let target: GateTarget;
    try {
      target = await gateTarget(url, 'CONNECT', gate);
    } catch (e) {
      refuse(statusOf(e), message(e));
      return;
    }
    const entry: HttpLogEntry = { method: 'CONNECT', url, status: null, bytes: 0 };
    const maxDown = gate.maxResponseBytes ?? 5 * 1024 * 1024;
    const maxUp = gate.maxRequestBytes ?? 1024 * 1024;
    const limitMs = gate.timeoutMs ?? 15_000;
    const upstream = connect({ host: target.address, port: target.port, family: target.family });
    upstream.on('error', () => {});
    let ended = false;
    let up = 0;
    let timer: NodeJS.Timeout | undefined;
    const end = (why?: string) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      tunnels.delete(end);
      gate.signal?.removeEventListener('abort', onAbort);
      if (why && entry.status === null) refuse(502, why);
      else if (why) client.destroy();
      // A clean close lets the script read what is still buffered for it (destroying the socket
      // here cut every download the script had not read to the end when the host hung up).
      else client.end();
      upstream.destroy();
      if (why) entry.error = why;
      gate.log?.(entry);
    };
    const onAbort = () => end('the run was stopped');
    tunnels.add(end);
    gate.signal?.addEventListener('abort', onAbort, { once: true });
    timer = setTimeout(() => end(`${authority} took longer than ${limitMs} ms`), limitMs);
    upstream.once('error', (e) => end(`${authority}: ${e.message}`));
    upstream.once('connect', () => {
      if (ended) return;
      // The script gave up while the host was being reached.
      if (client.destroyed) return end('the script closed the connection');
      entry.status = 200;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      let first = true;
      // Nothing of the host reaches the script before the tunnel is known to carry what the gate
      // allows (a socket's data waits, paused, until a listener takes it).
      const down = () =>
        upstream.on('data', (chunk: Buffer) => {
          if (ended) return;
          entry.bytes += chunk.length;
          if (entry.bytes > maxDown) return end(`${authority} sent more than ${maxDown} bytes`);
          // The host waits while the script reads slowly: the app never holds a download.
          if (!client.write(chunk)) upstream.pause();
        });
      client.on('drain', () => upstream.resume());
      const fromClient = (chunk: Buffer) => {
        if (ended) return;
        if (first && chunk.length > 0) {
          first = false;
          // https only: what goes through a tunnel must start as TLS (a handshake record), so a
          // tunnel cannot carry plain HTTP where the gate allows https alone. The gate itself says
          // whether plain http is allowed here (a loopback address granted as such).
          if (gate.httpsOnly && chunk[0] !== 0x16) {
            client.pause();
            gateTarget(`http://${authority}`, 'CONNECT', { ...gate, log: undefined }).then(
              () => {
                client.resume();
                pass(chunk);
                down();
              },
              (e: unknown) => end(message(e)),
            );
            return;
          }
          if (gate.httpsOnly) down();
        }
        pass(chunk);
      };
      const pass = (chunk: Buffer) => {
        up += chunk.length;
        if (up > maxUp) return end(`more than ${maxUp} bytes were sent to ${authority}`);
        upstream.write(chunk);
      };
      client.on('data', fromClient);
      if (head.length) fromClient(head);
      if (!gate.httpsOnly) down();
      client.once('end', () => upstream.end());
      upstream.once('end', () => client.end());
      client.once('close', () => end());
      upstream.once('close', (failed: boolean) =>
        end(failed ? `${authority} broke the connection` : undefined),
      );
    });
  }

  /** A plain proxied request (`GET http://host/path`): made by the gate itself, redirects included. */
  async function forward(req: IncomingMessage, res: ServerResponse) {
    const fail = (status: number, why: string) => {
      if (res.headersSent) return void res.destroy();
      const line = reasonLine(why);
      res.writeHead(status, line, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
      res.end(line);
    };
    const raw = req.url ?? '';
    if (!/^https?:\/\//i.test(raw)) {
      fail(400, 'this is an HTTP proxy: ask for an absolute http:// URL, or CONNECT for https');
      return;
    }
    const maxUp = gate.maxRequestBytes ?? 1024 * 1024;
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const c of req) {
        size += (c as Buffer).length;
        if (size > maxUp) throw new AppError('TOO_LARGE', `the request body is over ${maxUp} bytes`);
        chunks.push(c as Buffer);
      }
    } catch (e) {
      gate.log?.({ method: req.method ?? 'GET', url: raw, status: null, bytes: 0, error: message(e) });
      fail(statusOf(e), message(e));
      return;
    }
    const headers: Record<string, string> = {};
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      const k = req.rawHeaders[i]!;
      if (HOP_HEADERS.has(k.toLowerCase())) continue;
      headers[k] = headers[k] ? `${headers[k]}, ${req.rawHeaders[i + 1]}` : req.rawHeaders[i + 1]!;
    }
    try {
      const r = await httpRequest(
        {
          method: req.method ?? 'GET',
          url: raw,
          headers,
          body: size ? Buffer.concat(chunks).toString('base64') : null,
        },
        // The gate reads a plain request's answer whole before passing it on, so it is held to
        // what fits in memory whatever a tunnel may stream.
        { ...gate, maxResponseBytes: Math.min(gate.maxResponseBytes ?? PLAIN_MAX_BYTES, PLAIN_MAX_BYTES) },
      );
      const body = Buffer.from(r.body, 'base64');
      const out: Array<[string, string]> = r.headers.filter(([k]) => !HOP_HEADERS.has(k.toLowerCase()));
      out.push(['Content-Length', String(body.length)]);
      res.writeHead(r.status, reasonLine(r.reason || 'OK'), out.flat());
      res.end(body);
    } catch (e) {
      // httpRequest logged it.
      fail(statusOf(e), message(e));
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    socketPath,
    async close() {
      for (const end of [...tunnels]) end('the run ended');
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Run `fn` with a proxy for the gate's options, handing it the socket's host path (undefined when
 * `gate` is null: the run gets no network path at all), and stop the proxy after.
 */
export async function withNetProxy<T>(
  gate: HttpGateOptions | null | undefined,
  fn: (proxySocket: string | undefined) => Promise<T>,
): Promise<T> {
  if (!gate) return fn(undefined);
  const proxy = await startNetProxy(gate);
  try {
    return await fn(proxy.socketPath);
  } finally {
    await proxy.close();
  }
}

/**
 * Python run by the sandbox's start-up (after the limits, before it becomes the script) when the
 * run has a network path: it binds a loopback port, forks a forwarder that carries each connection
 * on it to the proxy's Unix socket, and names the port in the proxy variables the script inherits.
 * The forwarder is one process with one thread (a selector, bounded buffers), so a script with many
 * connections costs no threads; it dies with the sandbox's PID namespace.
 */
export function proxyForwarderPrelude(socketInSandbox: string = NATIVE_PROXY_SOCKET): string {
  return `
def _skilldesk_forwarder(path):
    import selectors, socket
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.bind(("127.0.0.1", 0))
    ls.listen(128)
    port = ls.getsockname()[1]
    if os.fork() != 0:
        ls.close()
        for k in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
            os.environ[k] = "http://127.0.0.1:%d" % port
        return
    try:
        null = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        sel = selectors.DefaultSelector()
        ls.setblocking(False)
        sel.register(ls, selectors.EVENT_READ, None)
        room = 1 << 18

        class End:
            __slots__ = ("sock", "peer", "out", "eof", "closed")

            def __init__(self, sock):
                self.sock, self.peer, self.out, self.eof, self.closed = sock, None, bytearray(), False, False

        def watch(e):
            if e.closed:
                return
            ev = 0
            if not e.eof and len(e.peer.out) < room:
                ev |= selectors.EVENT_READ
            if e.out:
                ev |= selectors.EVENT_WRITE
            try:
                key = sel.get_key(e.sock)
            except KeyError:
                key = None
            if ev and key is None:
                sel.register(e.sock, ev, e)
            elif ev and key.events != ev:
                sel.modify(e.sock, ev, e)
            elif not ev and key is not None:
                sel.unregister(e.sock)

        def close(e):
            for x in (e, e.peer):
                if not x.closed:
                    x.closed = True
                    try:
                        sel.unregister(x.sock)
                    except (KeyError, ValueError):
                        pass
                    x.sock.close()

        def shut(e):
            try:
                e.sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass

        while True:
            for key, ev in sel.select():
                if key.data is None:
                    try:
                        c, _ = ls.accept()
                    except OSError:
                        continue
                    u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    try:
                        u.connect(path)
                    except OSError:
                        c.close()
                        u.close()
                        continue
                    c.setblocking(False)
                    u.setblocking(False)
                    a, b = End(c), End(u)
                    a.peer, b.peer = b, a
                    watch(a)
                    watch(b)
                    continue
                e = key.data
                if e.closed:
                    continue
                if ev & selectors.EVENT_READ:
                    try:
                        data = e.sock.recv(65536)
                    except BlockingIOError:
                        data = None
                    except OSError:
                        close(e)
                        continue
                    if data == b"":
                        e.eof = True
                        if not e.peer.out:
                            shut(e.peer)
                    elif data:
                        e.peer.out += data
                if ev & selectors.EVENT_WRITE and e.out:
                    try:
                        del e.out[: e.sock.send(e.out)]
                    except BlockingIOError:
                        pass
                    except OSError:
                        close(e)
                        continue
                    if not e.out and e.peer.eof:
                        shut(e)
                if e.eof and e.peer.eof and not e.out and not e.peer.out:
                    close(e)
                    continue
                watch(e)
                watch(e.peer)
    finally:
        os._exit(0)

_skilldesk_forwarder(${JSON.stringify(socketInSandbox)})
del _skilldesk_forwarder`;
}
