// MCP tools for chat against real servers from npm: server-everything over stdio, Streamable HTTP
// and the older HTTP+SSE transport (the fallback), and server-filesystem over stdio. Names within
// provider limits, progress, cancellation, restart after death, approvals (per chat, always —
// remembered in the store across a reopen — deny, timeout) and a canary key kept out of a stdio
// server's environment (/proc/PID/environ).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ApprovalRequestedEvent,
  type ApprovalSettledEvent,
  SaveServerReqSchema,
  type ToolCallProgressedEvent,
} from '../contract/tools.js';
import { openDatabase } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { ApprovalBroker, sqliteApprovalStore } from './approvals.js';
import { declaredMcpTools, mcpTurnTools } from './chat-tools.js';
import type { ConfiguredServer } from './client.js';
import { exposedToolName, McpHub } from './hub.js';

const req = createRequire(import.meta.url);
const bin = (pkg: string) => join(dirname(req.resolve(`${pkg}/package.json`)), 'dist', 'index.js');
const everything = bin('@modelcontextprotocol/server-everything');
const filesystem = bin('@modelcontextprotocol/server-filesystem');

const stdio = (name: string, args: string[], env?: Record<string, string>): ConfiguredServer => ({
  name,
  scope: 'account',
  overridden: false,
  config: { command: process.execPath, args, ...(env ? { env } : {}) },
});

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

function hubOf(servers: ConfiguredServer[], env: NodeJS.ProcessEnv = process.env, backoff = 200) {
  const statuses: string[] = [];
  const hub = new McpHub({
    servers: () => servers,
    env,
    backoffMs: () => backoff,
    onStatus: (s) => statuses.push(`${s.name}:${s.state}`),
  });
  cleanup.push(() => hub.close());
  return { hub, statuses };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function startHttp(mode: 'streamableHttp' | 'sse'): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [everything, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  cleanup.push(() => child.kill());
  await new Promise<void>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d) => {
      err += String(d);
      if (/listening|running/i.test(err)) resolve();
    });
    child.once('exit', (c) => reject(new Error(`server exited ${c}: ${err}`)));
  });
  return { port, child };
}

describe('MCP hub (tools for chat)', () => {
  it('names tools server__tool within 64 provider-safe characters, long names kept distinct', () => {
    expect(exposedToolName('everything', 'echo')).toBe('everything__echo');
    expect(exposedToolName('my server.v2', 'get/thing')).toBe('my_server_v2__get_thing');
    const a = exposedToolName('s'.repeat(40), `${'t'.repeat(40)}a`);
    const b = exposedToolName('s'.repeat(40), `${'t'.repeat(40)}b`);
    for (const n of [a, b]) expect(n).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(a).not.toBe(b);
  });

  it('refuses to start a server named like the skills\' approvals ("Skill"): its tools would share their remembered approvals', async () => {
    const { hub } = hubOf([
      stdio('Skill', [everything, 'stdio']),
      stdio('everything', [everything, 'stdio']),
    ]);
    const tools = await hub.tools();
    expect(tools.some((t) => t.server === 'Skill')).toBe(false);
    expect(tools.some((t) => t.server === 'everything')).toBe(true);
    const skill = hub.status().find((s) => s.name === 'Skill');
    expect(skill).toMatchObject({ state: 'failed' });
    expect(skill?.error).toMatch(/reserved for SkillDesk's skills.*rename the server/);
    expect(
      SaveServerReqSchema.safeParse({ scope: 'account', name: ' SKILL ', config: { command: 'x' } }).success,
    ).toBe(false);
    expect(
      SaveServerReqSchema.safeParse({ scope: 'account', name: 'skills', config: { command: 'x' } }).success,
    ).toBe(true);
  });

  it('offers server-everything tools over stdio with annotations, reports progress, and keeps a canary key out of its environment', async () => {
    const canary = 'sk-canary-0123456789abcdef';
    const { hub } = hubOf([stdio('everything', [everything, 'stdio'], { LEAK: canary, OWN_VAR: 'yes' })], {
      ...process.env,
      OPENAI_API_KEY: canary,
      ANTHROPIC_API_KEY: canary,
    });
    const tools = await hub.tools();
    const echo = tools.find((t) => t.exposed === 'everything__echo');
    expect(echo?.input_schema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
    const long = tools.find((t) => t.name === 'trigger-long-running-operation')!;
    expect(long.annotations?.readOnlyHint).toBe(true);
    for (const t of tools) expect(t.exposed).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);

    if (process.platform === 'linux') {
      const pid = hub.pid('everything')!;
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
      expect(environ).toContain('OWN_VAR=yes');
      expect(environ).not.toContain(canary);
      expect(environ).not.toMatch(/OPENAI_API_KEY|ANTHROPIC_API_KEY/);
    }

    expect(await hub.call(echo!, { message: 'hi' })).toEqual({ ok: true, result: { text: 'Echo: hi' } });
    const progress: number[] = [];
    const r = await hub.call(
      long,
      { duration: 0.3, steps: 3 },
      { onProgress: (p) => progress.push(p.progress) },
    );
    expect(r.ok).toBe(true);
    // The SDK drops a progress notification that arrives after the result: the last may be missing.
    expect(progress.slice(0, 2)).toEqual([1, 2]);
    expect(progress.length).toBeLessThanOrEqual(3);
  });

  it('sends cancellation when the turn is cancelled, and the server keeps serving', async () => {
    const { hub } = hubOf([stdio('everything', [everything, 'stdio'])]);
    const tools = await hub.tools();
    const long = tools.find((t) => t.name === 'trigger-long-running-operation')!;
    const ctl = new AbortController();
    const t0 = Date.now();
    const call = hub.call(
      long,
      { duration: 20, steps: 20 },
      { signal: ctl.signal, onProgress: () => ctl.abort() },
    );
    const r = await call;
    expect(r).toEqual({ ok: false, result: { error: 'the call was cancelled' } });
    expect(Date.now() - t0).toBeLessThan(10_000);
    const echo = tools.find((t) => t.name === 'echo')!;
    expect((await hub.call(echo, { message: 'still here' })).ok).toBe(true);
  });

  it('restarts a server that dies, with back-off, reporting the failure instead of throwing', async () => {
    const { hub, statuses } = hubOf([stdio('everything', [everything, 'stdio'])]);
    const tools = await hub.tools();
    const echo = tools.find((t) => t.name === 'echo')!;
    const pid = hub.pid('everything')!;
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => hub.status()[0]?.state, { timeout: 5000 }).toBe('failed');
    expect(hub.status()[0]?.error).toMatch(/closed/);
    const during = await hub.call(echo, { message: 'x' });
    expect(during.ok).toBe(false);
    // A restart can itself fail on a loaded machine (then it is retried after the back-off): wait
    // for the server to be back, however many attempts that took, and say why if it never is.
    await expect
      .poll(() => `${hub.status()[0]?.state} ${hub.status()[0]?.error ?? ''}`.trim(), { timeout: 45_000 })
      .toBe('ready');
    expect(hub.pid('everything')).not.toBe(pid);
    expect(hub.status()[0]?.restarts).toBeGreaterThanOrEqual(1);
    expect((await hub.call(echo, { message: 'back' })).result).toEqual({ text: 'Echo: back' });
    expect(statuses).toEqual(expect.arrayContaining(['everything:failed', 'everything:ready']));
  }, 90_000);

  it('a command that cannot start is a failed server, not an exception', async () => {
    const { hub } = hubOf([stdio('ghost', ['/nonexistent/server.js'])], process.env, 60_000);
    expect(await hub.tools()).toEqual([]);
    expect(hub.status()[0]).toMatchObject({ name: 'ghost', state: 'failed' });
    expect(hub.status()[0]?.error).toMatch(/could not start/);
  });

  it('speaks Streamable HTTP, and falls back to HTTP+SSE for an older server', async () => {
    const modern = await startHttp('streamableHttp');
    const legacy = await startHttp('sse');
    const { hub } = hubOf([
      {
        name: 'modern',
        scope: 'account',
        overridden: false,
        config: { url: `http://127.0.0.1:${modern.port}/mcp` },
      },
      {
        name: 'legacy',
        scope: 'account',
        overridden: false,
        config: { url: `http://127.0.0.1:${legacy.port}/sse` },
      },
    ]);
    const tools = await hub.tools();
    expect(hub.status().map((s) => [s.name, s.state, s.transport])).toEqual([
      ['modern', 'ready', 'http'],
      ['legacy', 'ready', 'sse'],
    ]);
    for (const server of ['modern', 'legacy']) {
      const echo = tools.find((t) => t.exposed === `${server}__echo`)!;
      expect(await hub.call(echo, { message: server })).toEqual({
        ok: true,
        result: { text: `Echo: ${server}` },
      });
    }
  });

  it('runs server-filesystem over stdio within its allowed folder', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'notes.txt'), 'hello from a file');
    const { hub } = hubOf([stdio('files', [filesystem, dir])]);
    const tools = await hub.tools();
    const read = tools.find((t) => t.name === 'read_text_file' || t.name === 'read_file')!;
    expect(read.exposed).toBe(`files__${read.name}`);
    const r = await hub.call(read, { path: join(dir, 'notes.txt') });
    expect(r).toEqual({ ok: true, result: expect.objectContaining({}) });
    expect(JSON.stringify(r.result)).toContain('hello from a file');
    const outside = await hub.call(read, { path: '/etc/hostname' });
    expect(outside.ok).toBe(false);
  });
});

describe('approvals before MCP tool calls', () => {
  function setup(timeoutMs = 10_000) {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    let db = openDatabase(join(dir, 'agents.db'));
    cleanup.push(() => db.close());
    const requested: ApprovalRequestedEvent[] = [];
    const settled: ApprovalSettledEvent[] = [];
    const progressed: ToolCallProgressedEvent[] = [];
    const broker = () =>
      new ApprovalBroker({
        store: () => sqliteApprovalStore(db),
        requested: (e) => requested.push(e),
        settled: (e) => settled.push(e),
        timeoutMs,
      });
    return {
      dir,
      requested,
      settled,
      progressed,
      broker,
      reopen() {
        db.close();
        db = openDatabase(join(dir, 'agents.db'));
      },
      store: () => sqliteApprovalStore(db),
    };
  }

  it('asks with tool, server and arguments; deny reaches the model as a tool error; once asks again; chat and always stick (always across a reopen)', async () => {
    const s = setup();
    const { hub } = hubOf([stdio('everything', [everything, 'stdio'])]);
    let broker = s.broker();
    const turn = (sid: string) => {
      const t = mcpTurnTools({ hub, approvals: broker, progressed: (e) => s.progressed.push(e) }, sid);
      return t;
    };
    const t1 = turn('chat-1');
    await t1.prepare();
    expect(t1.specs().find((x) => x.name === 'everything__echo')?.description).toMatch(
      /^\[MCP server everything/,
    );

    // deny
    const denied = t1.call('everything__echo', { message: 'a' }, { call_id: 'c1' })!;
    await expect.poll(() => s.requested.length).toBe(1);
    expect(s.requested[0]).toMatchObject({
      session_id: 'chat-1',
      call_id: 'c1',
      tool: 'everything__echo',
      server: 'everything',
      server_tool: 'echo',
      args: { message: 'a' },
    });
    expect(broker.pending()).toHaveLength(1);
    expect(broker.answer(s.requested[0]!.approval_id, 'deny')).toBe(true);
    const d = await denied;
    expect(d.ok).toBe(false);
    expect(JSON.stringify(d.result)).toMatch(/user denied/);
    expect(broker.answer(s.requested[0]!.approval_id, 'once')).toBe(false);

    // once: runs, and the next call asks again
    const once = t1.call('everything__echo', { message: 'b' }, { call_id: 'c2' })!;
    await expect.poll(() => s.requested.length).toBe(2);
    broker.answer(s.requested[1]!.approval_id, 'once');
    expect((await once).result).toEqual({ text: 'Echo: b' });

    // chat: this chat stops asking, another chat still asks
    const chat = t1.call('everything__echo', { message: 'c' }, { call_id: 'c3' })!;
    await expect.poll(() => s.requested.length).toBe(3);
    broker.answer(s.requested[2]!.approval_id, 'chat');
    await chat;
    expect((await t1.call('everything__echo', { message: 'd' }, { call_id: 'c4' })!).ok).toBe(true);
    expect(s.requested).toHaveLength(3);
    const t2 = turn('chat-2');
    await t2.prepare();
    const other = t2.call('everything__echo', { message: 'e' }, { call_id: 'c5' })!;
    await expect.poll(() => s.requested.length).toBe(4);

    // always: remembered in the store, across a reopen and a new broker (an app restart)
    broker.answer(s.requested[3]!.approval_id, 'always');
    await other;
    s.reopen();
    broker = s.broker();
    const t3 = turn('chat-3');
    await t3.prepare();
    expect((await t3.call('everything__echo', { message: 'f' }, { call_id: 'c6' })!).ok).toBe(true);
    expect(s.requested).toHaveLength(4);
    expect(s.store().list()).toEqual([
      { server: 'everything', tool: 'echo', created_at: expect.any(String) },
    ]);
    expect(s.store().remove('everything', 'echo')).toBe(true);
    void t3.call('everything__echo', { message: 'g' }, { call_id: 'c7' });
    await expect.poll(() => s.requested.length).toBe(5);
    broker.denyAll();
    expect(s.settled.map((e) => [e.decision, e.by])).toEqual([
      ['deny', 'user'],
      ['once', 'user'],
      ['chat', 'user'],
      ['always', 'user'],
      ['deny', 'cancelled'],
    ]);
  });

  it('read-only tools run without asking only when turned on; no answer in time denies; progress is published', async () => {
    const s = setup(300);
    const { hub } = hubOf([stdio('everything', [everything, 'stdio'])]);
    const broker = s.broker();
    const t = mcpTurnTools({ hub, approvals: broker, progressed: (e) => s.progressed.push(e) }, 'chat-1');
    await t.prepare();
    const expired = await t.call(
      'everything__trigger-long-running-operation',
      { duration: 0.2, steps: 2 },
      { call_id: 'p0' },
    )!;
    expect(expired.ok).toBe(false);
    expect(JSON.stringify(expired.result)).toMatch(/nobody answered/);
    expect(s.settled[0]).toMatchObject({ decision: 'deny', by: 'timeout' });

    s.store().setAutoReadOnly(true);
    const r = await t.call(
      'everything__trigger-long-running-operation',
      { duration: 0.2, steps: 2 },
      { call_id: 'p1' },
    )!;
    expect(r.ok).toBe(true);
    expect(s.progressed[0]).toEqual({
      session_id: 'chat-1',
      call_id: 'p1',
      progress: 1,
      total: 2,
      message: null,
    });
    // a tool not annotated read-only still asks
    void t.call('everything__toggle-simulated-logging', {}, { call_id: 'p2' });
    await expect.poll(() => s.requested.length).toBe(2);
    broker.denyAll();
  });
});

describe('tools a skill declares', () => {
  it('parses allowed-tools entries and the mcp-servers metadata, ignoring other tools', () => {
    expect(
      declaredMcpTools('Read Bash(git:*) mcp__files__read_file mcp__web files__write_file gh__*', {
        'mcp-servers': 'db, search',
      }),
    ).toEqual([
      { server: 'files', tool: 'read_file' },
      { server: 'web', tool: null },
      { server: 'files', tool: 'write_file' },
      { server: 'gh', tool: null },
      { server: 'db', tool: null },
      { server: 'search', tool: null },
    ]);
  });

  it("offers a disabled server's tools only to a turn that read a skill declaring them, and exactly those", async () => {
    const off: ConfiguredServer = {
      ...stdio('everything', [everything, 'stdio']),
      config: { command: process.execPath, args: [everything, 'stdio'], disabled: true },
    };
    const { hub } = hubOf([off]);
    const requested: ApprovalRequestedEvent[] = [];
    const broker = new ApprovalBroker({
      store: () => ({
        list: () => [],
        has: () => false,
        add: () => {},
        remove: () => false,
        autoReadOnly: () => false,
        setAutoReadOnly: () => {},
      }),
      requested: (e) => {
        requested.push(e);
        queueMicrotask(() => broker.answer(e.approval_id, 'once'));
      },
      settled: () => {},
    });
    const turn = mcpTurnTools({ hub, approvals: broker, progressed: () => {} }, 'chat-1');
    await turn.prepare();
    expect(turn.specs()).toEqual([]);
    expect(turn.call('everything__echo', { message: 'x' }, { call_id: 'c0' })).toBeUndefined();

    const revealed = await turn.reveal({
      name: 'Echoer',
      allowed_tools: 'Read mcp__everything__echo',
      metadata: null,
    });
    expect(revealed).toEqual(['everything__echo']);
    expect(turn.specs().map((t) => t.name)).toEqual(['everything__echo']);
    expect(await turn.call('everything__echo', { message: 'declared' }, { call_id: 'c1' })).toEqual({
      ok: true,
      result: { text: 'Echo: declared' },
    });
    expect(requested).toHaveLength(1);

    // Another turn that read no such skill does not see it.
    const other = mcpTurnTools({ hub, approvals: broker, progressed: () => {} }, 'chat-2');
    await other.prepare();
    expect(other.specs()).toEqual([]);
  });
});
