// run_python through the chat slice with the loopback provider scripting the model's calls: a CSV
// attached to a message lands in the chat's folder; the first run asks (approval card, "this
// chat"), computes with csv/statistics in Pyodide and writes a file; a second turn reads that file
// without asking again; a run past its time limit is stopped and says why, and the next run works;
// network access is refused; a cancel from the chat ends the turn while a run is going; Full
// Python says it is not available. The chat's folder is listed, read, uploaded to, exported and
// removed with the chat; names that could leave it are refused.
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload, Result } from '../contract/channels.js';
import type { ApprovalRequestedEvent } from '../contract/tools.js';
import { createHost, type Host } from '../host.js';
import { type LoopbackScriptInput, startLoopbackProvider } from '../llm/index.js';
import { quietLogger, tempDir } from '../test-support/index.js';
import { invokeChannel } from '../transport/dispatch.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function open(home: string) {
  const host: Host = createHost({ home, env: {}, mode: 'test', logger: quietLogger });
  cleanups.push(() => host.dispose());
  const call = async <T = Record<string, unknown>>(channel: string, req: unknown): Promise<Result<T>> =>
    (await invokeChannel(host.handlers, channel, req, { transport: 'in-process' }, quietLogger)) as Result<T>;
  const ok = async <T = Record<string, unknown>>(channel: string, req: unknown): Promise<T> => {
    const r = await call<T>(channel, req);
    if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
    return r.value;
  };
  const requested: ApprovalRequestedEvent[] = [];
  host.events.subscribe('tools/approval-requested', (e) => requested.push(e));
  const started: Array<EventPayload<'chat/tool-call-started'>> = [];
  host.events.subscribe('chat/tool-call-started', (e) => started.push(e));
  const finishedCalls: Array<EventPayload<'chat/tool-call-finished'>> = [];
  host.events.subscribe('chat/tool-call-finished', (e) => finishedCalls.push(e));
  const turn = async (message: string, extra: Record<string, unknown> = {}) => {
    const done = new Promise<EventPayload<'chat/turn-finished'>>((resolve) => {
      const off = host.events.subscribe('chat/turn-finished', (p) => {
        off();
        resolve(p);
      });
    });
    const r = await ok<{ session_id: string }>('chat/send-message', { message, ...extra });
    return { session_id: r.session_id, finished: done };
  };
  return { host, ok, call, requested, started, finishedCalls, turn };
}

const py = (code: string, extra: Record<string, unknown> = {}) => ({
  tool_calls: [{ name: 'run_python', arguments: { code, ...extra } }],
});

const CSV = 'region,amount\nnorth,10\nsouth,20\neast,30\nwest,45\n';

const SUMMARY = `import csv, json, statistics
with open("sales.csv", newline="") as f:
    rows = list(csv.DictReader(f))
amounts = [float(r["amount"]) for r in rows]
summary = {"n": len(amounts), "mean": statistics.mean(amounts), "median": statistics.median(amounts)}
with open("summary.json", "w") as f:
    json.dump(summary, f)
print("mean", summary["mean"])
`;

async function withProvider(script: LoopbackScriptInput) {
  const provider = await startLoopbackProvider({ script });
  cleanups.push(() => provider.close());
  const home = tempDir();
  const app = open(home);
  await app.ok('settings/set-provider', { provider: 'openai', base_url: provider.url });
  await app.ok('settings/set-key', { provider: 'openai', key: 'sk-test' });
  return { app, provider, home };
}

type Call = { name: string; ok: boolean; result?: Record<string, unknown> };
async function callsOf(app: ReturnType<typeof open>, session_id: string): Promise<Call[]> {
  const s = await app.ok<{ messages: Array<{ tool_calls: Call[] }> }>('chat/get-session', { session_id });
  return s.messages.flatMap((m) => m.tool_calls);
}

describe('run_python in a chat', () => {
  it('computes on an attached CSV, keeps its files across turns, stops a run past its limit, refuses the network', async () => {
    const { app } = await withProvider([
      // turn 1: asked first; computes with csv + statistics; writes summary.json
      { ...py(SUMMARY), expect: { tools: ['run_python'] } },
      { text: 'The mean is 26.25.', expect: { tool_result_contains: 'mean 26.25' } },
      // turn 2: reads the file the first run wrote (no question: allowed for this chat)
      py('import json\nprint(json.load(open("summary.json"))["median"])\nx = 1'),
      { text: 'The median is 25.0.', expect: { tool_result_contains: '25.0' } },
      // turn 3: state does not persist (x is gone); a run past its time limit; then one that works
      py('print(x)'),
      { ...py('while True:\n    pass', { timeout_ms: 300 }), expect: { tool_result_contains: 'NameError' } },
      { ...py('print(6 * 7)'), expect: { tool_result_contains: 'time limit' } },
      { text: 'Recovered.', expect: { tool_result_contains: '42' } },
      // turn 4: no network
      py(
        'import urllib.request\ntry:\n    urllib.request.urlopen("http://127.0.0.1:9/", timeout=2)\n    print("REACHED")\nexcept Exception as e:\n    print("refused:", type(e).__name__)\n',
      ),
      py('import socket\ns = socket.create_connection(("127.0.0.1", 9), timeout=2)'),
      { text: 'No network here.' },
    ]);
    const t1 = await app.turn('Summarise the sales', {
      attachments: [{ name: 'sales.csv', media_type: 'text/csv', text: CSV }],
    });
    await expect.poll(() => app.requested.length, { timeout: 30_000 }).toBe(1);
    const ask = app.requested[0]!;
    expect(ask).toMatchObject({
      session_id: t1.session_id,
      tool: 'run_python',
      server: 'skilldesk',
      server_tool: 'run_python',
      args: { code: SUMMARY },
    });
    await app.ok('tools/answer-approval', { approval_id: ask.approval_id, decision: 'chat' });
    const e1 = await t1.finished;
    expect(e1).toMatchObject({ status: 'complete', text: 'The mean is 26.25.' });
    const [c1] = await callsOf(app, t1.session_id);
    expect(c1).toMatchObject({
      name: 'run_python',
      ok: true,
      result: {
        runtime: 'pyodide',
        stdout: 'mean 26.25\n',
        exception: null,
        files: [{ name: 'summary.json', mime: 'application/json' }],
      },
    });
    const listed = await app.ok<{ files: Array<{ name: string }> }>('chat/list-files', {
      session_id: t1.session_id,
    });
    expect(listed.files.map((f) => f.name)).toEqual(['sales.csv', 'summary.json']);

    const t2 = await app.turn('And the median?', { session_id: t1.session_id });
    expect(await t2.finished).toMatchObject({ status: 'complete', text: 'The median is 25.0.' });
    expect(app.requested).toHaveLength(1);

    const t3 = await app.turn('Try again', { session_id: t1.session_id });
    expect(await t3.finished).toMatchObject({ status: 'complete', text: 'Recovered.' });
    const c3 = (await callsOf(app, t1.session_id)).slice(2, 5);
    expect(c3[0]).toMatchObject({ ok: true, result: { exception: { type: 'NameError' } } });
    expect(String((c3[0]!.result!.exception as { traceback: string }).traceback)).toContain('main.py');
    expect(c3[1]).toMatchObject({
      ok: false,
      result: { stopped: { code: 'SANDBOX_TIMEOUT', reason: expect.stringContaining('time limit') } },
    });
    expect(c3[2]).toMatchObject({ ok: true, result: { stdout: '42\n', exception: null } });

    const t4 = await app.turn('Fetch something', { session_id: t1.session_id });
    expect(await t4.finished).toMatchObject({ status: 'complete' });
    const c4 = (await callsOf(app, t1.session_id)).slice(5, 7);
    expect(String(c4[0]!.result!.stdout)).toMatch(/^refused: /);
    expect(String(c4[0]!.result!.stdout)).not.toContain('REACHED');
    const sock = c4[1]!.result!;
    expect(sock.exception ?? sock.stopped).toBeTruthy();
  }, 180_000);

  it('reaches only the hosts granted to the chat; the description and the approval name them', async () => {
    const server = createServer((req, res) => res.end(`served ${req.url}`));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
    const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    const get = (url: string) =>
      `import urllib.request, urllib.error\ntry:\n    print(urllib.request.urlopen("${url}").read().decode())\nexcept urllib.error.URLError as e:\n    print("refused:", e.reason)\n`;
    const { app, provider } = await withProvider([
      { text: 'Hello.' },
      py(get(`http://${host}/rates.json`)),
      py(get('http://127.0.0.1:1/other')),
      { text: 'Fetched.' },
    ]);
    const t1 = await app.turn('Hi');
    await t1.finished;
    const sid = t1.session_id;
    expect(await app.ok('python/get-network', { session_id: sid })).toEqual({ session_id: sid, hosts: [] });
    expect(
      await app.ok('python/set-network', { session_id: sid, hosts: [host.toUpperCase(), host] }),
    ).toEqual({
      session_id: sid,
      hosts: [host],
    });
    const bad = await app.call('python/set-network', { session_id: sid, hosts: ['https://example.com/x'] });
    expect(!bad.ok && bad.error.code).toBe('INVALID_INPUT');
    const missing = await app.call('python/set-network', { session_id: 'no-such-chat', hosts: [] });
    expect(!missing.ok && missing.error.code).toBe('NOT_FOUND');

    const t2 = await app.turn('Fetch the rates', { session_id: sid });
    await expect.poll(() => app.requested.length, { timeout: 30_000 }).toBe(1);
    expect(app.requested[0]!.description).toContain(`Network: only ${host}`);
    await app.ok('tools/answer-approval', { approval_id: app.requested[0]!.approval_id, decision: 'chat' });
    expect(await t2.finished).toMatchObject({ status: 'complete', text: 'Fetched.' });
    const calls = (await callsOf(app, sid)).filter((c) => c.name === 'run_python');
    expect(calls[0]!.result).toMatchObject({ stdout: 'served /rates.json\n' });
    expect(String(calls[1]!.result!.stdout)).toContain(
      `refused: run_python in this chat may not reach 127.0.0.1:1: it is not granted. The chat's Python network setting (Network, beside the Python picker over the chat's Files) allows hosts one by one, or: skilldesk python network allow 127.0.0.1:1 --chat ${sid}`,
    );
    const offered = provider.requests.filter((r) => r.turn !== null).at(-1)!;
    expect(JSON.stringify(offered.body)).toContain(
      `Network: only these hosts, over https, through the app: ${host}.`,
    );
  }, 180_000);

  it('cancel from the chat ends the turn while a run goes on; denied runs nothing; always is remembered', async () => {
    const { app } = await withProvider([
      // chat A: denied
      py('open("never.txt", "w").write("x")'),
      { text: 'Denied.', expect: { tool_result_contains: 'the user denied this call' } },
      // chat B: always; a long run, cancelled
      py('while True:\n    pass', { timeout_ms: 20_000 }),
      // chat C: runs unasked
      py('print(1)'),
      { text: 'Ran.', expect: { tool_result_contains: '1' } },
    ]);
    const a = await app.turn('Write a file');
    await expect.poll(() => app.requested.length, { timeout: 30_000 }).toBe(1);
    await app.ok('tools/answer-approval', { approval_id: app.requested[0]!.approval_id, decision: 'deny' });
    expect(await a.finished).toMatchObject({ text: 'Denied.' });
    expect(
      (await app.ok<{ files: unknown[] }>('chat/list-files', { session_id: a.session_id })).files,
    ).toEqual([]);

    const b = await app.turn('Loop forever');
    await expect.poll(() => app.requested.length, { timeout: 30_000 }).toBe(2);
    await app.ok('tools/answer-approval', { approval_id: app.requested[1]!.approval_id, decision: 'always' });
    await expect.poll(() => app.started.filter((s) => s.session_id === b.session_id).length).toBe(1);
    const t0 = Date.now();
    await app.ok('chat/cancel', { session_id: b.session_id });
    const eb = await b.finished;
    expect(eb.status).toBe('partial');
    expect(Date.now() - t0).toBeLessThan(15_000);

    const c = await app.turn('Print one');
    expect(await c.finished).toMatchObject({ text: 'Ran.' });
    // "always" was remembered for the workspace: no question in a new chat.
    expect(app.requested).toHaveLength(2);
  }, 180_000);

  it('keeps a folder per chat: list, read, upload, delete, export, removed with the chat; unsafe names refused', async () => {
    const { app, home } = await withProvider([{ text: 'Noted.' }]);
    const t = await app.turn('Here is data', {
      attachments: [{ name: '../../etc/sales.csv', media_type: 'text/csv', text: CSV }],
    });
    await t.finished;
    const sid = t.session_id;
    const list = () =>
      app.ok<{ files: Array<{ name: string; size: number }> }>('chat/list-files', { session_id: sid });
    expect((await list()).files).toEqual([expect.objectContaining({ name: 'sales.csv', size: CSV.length })]);
    const up = await app.ok<{ file: { name: string } }>('chat/upload-file', {
      session_id: sid,
      name: 'notes/readme.txt',
      data_base64: Buffer.from('hello').toString('base64'),
    });
    expect(up.file.name).toBe('notes/readme.txt');
    const read = await app.ok<{ data_base64: string; media_type: string }>('chat/read-file', {
      session_id: sid,
      name: 'notes/readme.txt',
    });
    expect(Buffer.from(read.data_base64, 'base64').toString()).toBe('hello');
    for (const name of ['../x', '/etc/passwd', '.hidden', 'a/../../b', 'con\u0000', 'a\\b']) {
      const r = await app.call('chat/upload-file', { session_id: sid, name, data_base64: '' });
      expect(r.ok, name).toBe(false);
      if (!r.ok) expect(r.error.code).toBe('INVALID_INPUT');
    }
    const missing = await app.call('chat/read-file', { session_id: sid, name: 'nope.txt' });
    expect(missing.ok || missing.error.code).toBe('NOT_FOUND');

    const exported = await app.ok<{ content: string }>('chat/export-session', {
      session_id: sid,
      format: 'json',
    });
    const doc = JSON.parse(exported.content) as { files: Array<{ name: string; data_base64: string }> };
    expect(doc.files.map((f) => f.name)).toEqual(['notes/readme.txt', 'sales.csv']);
    expect(Buffer.from(doc.files[1]!.data_base64, 'base64').toString()).toBe(CSV);
    const md = await app.ok<{ content: string }>('chat/export-session', { session_id: sid, format: 'md' });
    expect(md.content).toContain('- sales.csv (text/csv');

    expect(await app.ok('chat/delete-file', { session_id: sid, name: 'notes/readme.txt' })).toEqual({
      deleted: true,
    });
    expect((await list()).files.map((f) => f.name)).toEqual(['sales.csv']);
    const dir = join(home, 'chat-files', sid);
    expect(existsSync(join(dir, 'sales.csv'))).toBe(true);
    await app.ok('chat/delete-session', { session_id: sid });
    expect(existsSync(dir)).toBe(false);
    const gone = await app.call('chat/list-files', { session_id: sid });
    expect(gone.ok).toBe(false);
  }, 60_000);
});

// The folder itself is removed with the chat: checked on disk.
describe('a chat folder on disk', () => {
  it('is removed when the chat is deleted', async () => {
    const { chatFolder } = await import('../scripts/index.js');
    const root = tempDir();
    const f = chatFolder(root, 'abc-123');
    f.write('data/x.csv', Buffer.from('a,b\n'));
    expect(f.list().map((x) => x.name)).toEqual(['data/x.csv']);
    expect(() => f.write('../y', Buffer.from(''))).toThrow(/cannot name a file/);
    expect(() => chatFolder(root, '../evil')).toThrow(/not a chat id/);
    f.removeAll();
    expect(existsSync(f.dir)).toBe(false);
  });
});
