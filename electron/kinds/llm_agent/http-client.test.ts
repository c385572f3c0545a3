// A `mode: llm` skill whose tool uses `http.client` directly (not urllib): the prelude routes
// HTTPConnection/HTTPSConnection onto the app's http_request, so a granted local server is reached
// (method, headers, body both ways) and an ungranted host is refused naming the host and the grant.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startLoopbackProvider } from '../../llm/index.js';
import { runCli, tempDir } from '../../test-support/index.js';

const SKILL = `---
name: poster
description: Posts a note to a service and reports what it said.
mode: llm
network: [HOSTPORT]
timeout_ms: 20000
tools:
  - name: post_note
    description: Post a note; returns the service's reply.
    command: ['python3', 'post.py']
    parameters:
      - name: host
        description: host:port of the service
        required: true
      - name: note
        description: the note
        required: true
---
Post the user's note with post_note, then say what the service answered.
`;

// Written as for a normal Python: http.client, a JSON body, the response's status, headers, read().
const POST_PY = `import http.client, json, sys
host = sys.argv[1]
note = sys.argv[sys.argv.index("--note") + 1]
conn = http.client.HTTPConnection(host, timeout=10)
conn.request("POST", "/notes?x=1", body=json.dumps({"note": note}), headers={"Content-Type": "application/json", "X-Tool": "poster"})
r = conn.getresponse()
print("status", r.status, r.reason)
print("server", r.getheader("Server"))
print("body", r.read().decode())
conn.close()
try:
    s = http.client.HTTPSConnection("ungranted.example")
    s.request("GET", "/")
    s.getresponse()
    print("reached ungranted.example")
except OSError as e:
    print("refused:", e)
`;

describe('http.client in an LLM skill tool', () => {
  let site: Server;
  let hostport = '';
  const seen: Array<{ method: string; url: string; type: string; tool: string; body: string }> = [];
  beforeAll(async () => {
    site = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        seen.push({
          method: req.method ?? '',
          url: req.url ?? '',
          type: String(req.headers['content-type']),
          tool: String(req.headers['x-tool']),
          body,
        });
        res.writeHead(201, 'Stored', { server: 'NoteStore/2.0', 'content-type': 'application/json' });
        res.end(JSON.stringify({ stored: JSON.parse(body).note }));
      });
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    hostport = `127.0.0.1:${(site.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => site.close(() => r())));

  it('reaches a granted host through HTTPConnection and refuses an ungranted one by name', async () => {
    const dir = tempDir();
    const home = join(dir, 'home');
    const run = (...a: string[]) => runCli(['--home', home, ...a], { OPENAI_API_KEY: 'sk-loopback' });
    const skill = join(dir, 'poster');
    mkdirSync(skill, { recursive: true });
    writeFileSync(join(skill, 'SKILL.md'), SKILL.replace('HOSTPORT', hostport));
    writeFileSync(join(skill, 'post.py'), POST_PY);
    const imp = await run('skills', 'import', skill);
    expect(imp.code, imp.stderr + imp.stdout).toBe(0);
    expect((await run('skills', 'grant', 'poster', hostport)).code).toBe(0);

    const p = await startLoopbackProvider({
      script: [
        { tool_calls: [{ name: 'post_note', arguments: { host: hostport, note: 'buy milk' } }] },
        { text: 'Stored.', expect: { tool_result_contains: 'status 201 Stored' } },
      ] as never,
    });
    onTestFinished(() => p.close());
    const r = await run(
      '--json',
      'run-skill',
      'poster',
      '--input',
      'Note: buy milk',
      ...['--provider', 'openai', '--base-url', p.url, '--model', 'chat-model'],
    );
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const res = r.json().results[0];
    expect(res).toMatchObject({ ok: true, text: 'Stored.' });
    expect(seen).toEqual([
      {
        method: 'POST',
        url: '/notes?x=1',
        type: 'application/json',
        tool: 'poster',
        body: '{"note": "buy milk"}',
      },
    ]);
    const steps = res.data.steps as Array<Record<string, unknown>>;
    const tool = steps.find((s) => s.type === 'tool')!;
    expect(tool).toMatchObject({ exit_code: 0 });
    const out = String(tool.result);
    expect(out).toContain('status 201 Stored');
    expect(out).toContain('server NoteStore/2.0');
    expect(out).toContain('body {"stored":"buy milk"}');
    expect(out).toMatch(
      /refused: skill "poster" may not reach ungranted\.example.*not granted.*skills grant "poster" ungranted\.example/s,
    );
    expect(steps.filter((s) => s.type === 'http')).toEqual([
      expect.objectContaining({ method: 'POST', status: 201, url: `http://${hostport}/notes?x=1` }),
      expect.objectContaining({ method: 'GET', status: null, url: 'https://ungranted.example/' }),
    ]);
  }, 120_000);
});
