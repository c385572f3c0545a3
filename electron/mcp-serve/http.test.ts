// `mcp serve --http`: the SDK's Streamable HTTP client against the endpoint, with and without the
// token, and from a foreign Origin (the DNS-rebinding case).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { smallPackage, tempDir, testHost } from '../test-support/index.js';
import { createInProcessClient } from '../transport/in-process-client.js';
import { type McpHttpEndpoint, serveMcpHttp } from './http.js';

let endpoint: McpHttpEndpoint | null = null;
afterEach(async () => {
  await endpoint?.close();
  endpoint = null;
});

describe('MCP over Streamable HTTP', () => {
  it('serves the tools to a client with the token and refuses one without it or from another origin', async () => {
    const host = testHost({ home: tempDir() });
    endpoint = await serveMcpHttp(createInProcessClient(host), { port: 0, version: 'test' });
    const client = new Client({ name: 't', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(endpoint.url), {
        requestInit: { headers: { Authorization: `Bearer ${endpoint.token}` } },
      }),
    );
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('search_skills');
    const r = await client.callTool({
      name: 'search_skills',
      arguments: { query: 'summarize this article' },
    });
    expect(JSON.stringify(r.content)).toContain('Summarize');
    await client.close();

    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const post = (headers: Record<string, string>) =>
      fetch(endpoint!.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(init),
      });
    // No token and a wrong one: 401 with a Bearer challenge (not an OAuth discovery), each its own
    // message; the scheme is case-insensitive.
    const missing = await post({});
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    const missingMessage = ((await missing.json()) as { error: { message: string } }).error.message;
    expect(missingMessage).toContain('no bearer token');
    const wrong = await post({ Authorization: 'Bearer wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const wrongMessage = ((await wrong.json()) as { error: { message: string } }).error.message;
    expect(wrongMessage).toContain('wrong bearer token');
    expect((await post({ Authorization: 'Basic abc' })).status).toBe(401);
    expect((await post({ Authorization: `bearer ${endpoint.token}` })).status).toBe(200);
    expect((await post({ Authorization: `BEARER  ${endpoint.token}` })).status).toBe(200);
    expect(
      (await post({ Authorization: `Bearer ${endpoint.token}`, Origin: 'https://evil.example' })).status,
    ).toBe(403);
  }, 60_000);

  it('answers a 2026-07-28 request without a handshake, with resultType and cache hints', async () => {
    const host = testHost({ home: tempDir() });
    endpoint = await serveMcpHttp(createInProcessClient(host), { port: 0, version: 'test' });
    const call = async (method: string, params: Record<string, unknown> = {}) => {
      const r = await fetch(endpoint!.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          authorization: `Bearer ${endpoint!.token}`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method,
          params: {
            ...params,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        }),
      });
      expect(r.status).toBe(200);
      const body = await r.text();
      // The SDK answers as JSON or as one SSE event; either way, one JSON-RPC reply.
      const json = body.trim().startsWith('{') ? body : /^data: (.*)$/m.exec(body)![1]!;
      return JSON.parse(json) as { result?: Record<string, unknown>; error?: { code: number } };
    };
    expect((await call('server/discover')).result).toMatchObject({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
    });
    const skills = await call('skills/list');
    expect(skills.result).toMatchObject({ resultType: 'complete', cacheScope: 'private' });
    expect((skills.result!.skills as unknown[]).length).toBeGreaterThan(3);
    expect((await call('tools/list')).result).toMatchObject({
      resultType: 'complete',
      cacheScope: 'private',
    });
  }, 60_000);

  it('keeps a session between requests: its id is honoured, an unknown one is 404, DELETE ends it, and its GET stream hears list_changed', async () => {
    const host = testHost({ home: tempDir() });
    const core = createInProcessClient(host);
    endpoint = await serveMcpHttp(core, { port: 0, version: 'test' });
    const transport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
      requestInit: { headers: { Authorization: `Bearer ${endpoint.token}` } },
    });
    const client = new Client({ name: 't', version: '1' });
    let announced = 0;
    client.setNotificationHandler(
      z.object({ method: z.literal('notifications/resources/list_changed') }).passthrough() as never,
      () => {
        announced++;
      },
    );
    await client.connect(transport);
    const sid = transport.sessionId;
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);
    expect((await client.listTools()).tools.length).toBeGreaterThan(3);

    // A change made elsewhere reaches the session over its standalone GET stream, which a
    // stateless endpoint cannot offer.
    await core.invoke('skills/import-package', { package: smallPackage('Heard Over Http') });
    await expect.poll(() => announced, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);

    const post = (sessionId: string) =>
      fetch(endpoint!.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${endpoint!.token}`,
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
      });
    const unknown = await post('00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('send initialize again');

    await transport.terminateSession();
    expect((await post(sid!)).status).toBe(404);
    await client.close();
  }, 60_000);
});
