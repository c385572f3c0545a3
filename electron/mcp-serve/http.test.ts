// `mcp serve --http`: the SDK's Streamable HTTP client against the endpoint, with and without the
// token, and from a foreign Origin (the DNS-rebinding case).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir, testHost } from '../test-support/index.js';
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
    expect((await post({})).status).toBe(401);
    expect((await post({ Authorization: 'Bearer wrong' })).status).toBe(401);
    expect(
      (await post({ Authorization: `Bearer ${endpoint.token}`, Origin: 'https://evil.example' })).status,
    ).toBe(403);
  }, 60_000);
});
