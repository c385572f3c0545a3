/**
 * `skilldesk mcp serve --http PORT`: the same MCP server over Streamable HTTP, on loopback only,
 * behind a per-run bearer token, with Host and Origin checked (no DNS rebinding from a web page).
 * Stateless: each request gets a fresh server over the shared core client.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CoreClient } from '../transport/index.js';
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

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null }));
}

/** Serve MCP on `http://127.0.0.1:PORT/mcp` (PORT 0: any free port). */
export async function serveMcpHttp(
  client: CoreClient,
  opts: { port: number; version: string; token?: string },
): Promise<McpHttpEndpoint> {
  const token = opts.token ?? randomBytes(24).toString('base64url');
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
      const auth = String(req.headers.authorization ?? '');
      if (!auth.startsWith('Bearer ') || !sameToken(auth.slice(7), token)) {
        return refuse(res, 401, 'a bearer token is required (printed when the server started)');
      }
      const mcp = createSkillsMcpServer(client, { version: opts.version });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      await transport.handleRequest(req, res);
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
    close: () => new Promise((r) => server.close(() => r())),
  };
}
