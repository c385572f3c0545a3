// The MCP server against the letter of SEP-2640 and the 2026-07-28 revision, over an in-memory
// transport pair with the SDK's client (and raw JSON-RPC where the SDK has no method for it):
// entries with size and digest that match the bytes read, directory reads, the error codes, the
// cache following imports, deletes and a workspace switch, list_changed, modern requests.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { z } from 'zod';
import { smallPackage, tempDir, testHost } from '../test-support/index.js';
import { createInProcessClient } from '../transport/in-process-client.js';
import { createSkillsMcpServer, SKILLS_PAGE_SIZE } from './server.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

const Entry = z.object({
  uri: z.string(),
  frontmatter: z.record(z.string(), z.unknown()),
  resources: z.array(z.object({ uri: z.string(), digest: z.string(), size: z.number() })),
});
const ListResult = z.object({ skills: z.array(Entry), nextCursor: z.string().optional() }).passthrough();
const GetResult = z.object({ skill: Entry }).passthrough();
const DirResult = z
  .object({ resources: z.array(z.object({ uri: z.string(), name: z.string(), mimeType: z.string() })) })
  .passthrough();

function setup(opts: { mode?: 'web' } = {}) {
  const host = testHost({ home: tempDir(), ...opts });
  const core = createInProcessClient(host);
  const server = createSkillsMcpServer(core, { version: 'test', pollMs: 40 });
  return { host, core, server };
}

async function connect(server: ReturnType<typeof setup>['server']) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: 't', version: '1' });
  await client.connect(a);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected an error');
    },
    (e: { code?: number; message?: string }) => e,
  );

async function allSkills(client: Client) {
  const out: Array<z.infer<typeof Entry>> = [];
  let cursor: string | undefined;
  do {
    const r = await client.request({ method: 'skills/list', params: cursor ? { cursor } : {} }, ListResult);
    out.push(...r.skills);
    cursor = r.nextCursor;
  } while (cursor);
  return out;
}

describe('mcp serve: SEP-2640', () => {
  it('entries list every file with the digest and size of the bytes resources/read returns', async () => {
    const { server } = setup();
    const client = await connect(server);
    const skills = await allSkills(client);
    expect(skills.length).toBeGreaterThan(3);
    for (const s of skills) {
      const name = s.frontmatter.name as string;
      expect(s.uri).toBe(`skill://${name}/SKILL.md`);
      expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(typeof s.frontmatter.description).toBe('string');
      expect(s.resources[0]!.uri).toBe(s.uri);
      for (const f of s.resources) {
        const read = await client.readResource({ uri: f.uri });
        const c = read.contents[0]! as { text?: string; blob?: string };
        const bytes = c.text !== undefined ? Buffer.from(c.text, 'utf8') : Buffer.from(c.blob!, 'base64');
        expect(f.size).toBe(bytes.length);
        expect(f.digest).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`);
      }
      // The frontmatter of SKILL.md is the entry's, field by field.
      const md = (await client.readResource({ uri: s.uri })).contents[0] as { text: string };
      const fm = YAML.parse(/^---\n([\s\S]*?)\n---/.exec(md.text)![1]!);
      expect(fm).toEqual(s.frontmatter);
    }
    // resources/list names each SKILL.md with its frontmatter name, description and size.
    const listed = await client.listResources();
    const first = listed.resources.find((r) => r.uri === skills[0]!.uri)!;
    expect(first).toMatchObject({
      name: skills[0]!.frontmatter.name,
      description: skills[0]!.frontmatter.description,
      mimeType: 'text/markdown',
      size: skills[0]!.resources[0]!.size,
    });
  }, 60_000);

  it('declares directoryRead and reads the directories of a skill; errors are -32602', async () => {
    const { server } = setup();
    const client = await connect(server);
    expect(client.getServerCapabilities()?.extensions).toEqual({
      'io.modelcontextprotocol/skills': { directoryRead: true },
    });
    const withFiles = (await allSkills(client)).find((s) =>
      s.resources.some((r) => r.uri.split('/').length > 4),
    )!;
    const root = withFiles.uri.replace(/\/SKILL\.md$/, '');
    const top = await client.request(
      { method: 'resources/directory/read', params: { uri: root } },
      DirResult,
    );
    expect(top.resources.map((r) => r.uri)).toContain(withFiles.uri);
    const sub = top.resources.find((r) => r.mimeType === 'inode/directory')!;
    expect(sub.uri).not.toMatch(/\/$/);
    const inner = await client.request(
      { method: 'resources/directory/read', params: { uri: sub.uri } },
      DirResult,
    );
    for (const r of inner.resources) expect(r.uri.startsWith(`${sub.uri}/`)).toBe(true);

    const dirErr = await errorOf(
      client.request({ method: 'resources/directory/read', params: { uri: withFiles.uri } }, DirResult),
    );
    expect(dirErr).toMatchObject({ code: -32602 });
    expect(dirErr.message).toContain('not a directory');

    for (const params of [undefined, {}, { uri: 7 }]) {
      const e = await errorOf(
        client.request({ method: 'skills/get', ...(params ? { params } : {}) } as never, GetResult),
      );
      expect(e).toMatchObject({ code: -32602 });
      expect(e.message).toContain('uri');
    }
    const unknown = await errorOf(
      client.request({ method: 'skills/get', params: { uri: 'skill://nope/SKILL.md' } }, GetResult),
    );
    expect(unknown).toMatchObject({ code: -32602 });
    expect((await errorOf(client.readResource({ uri: 'skill://nope/SKILL.md' }))).code).toBe(-32602);
    expect((await errorOf(client.readResource({ uri: root }))).message).toContain('directory');

    // The resource-only clients' manifest: the same files, sizes and hashes as the entry.
    const manifest = await client.readResource({ uri: withFiles.uri.replace(/SKILL\.md$/, '_manifest') });
    const m = JSON.parse((manifest.contents[0] as { text: string }).text);
    expect(m.skill).toBe(withFiles.frontmatter.name);
    expect(
      m.files.map((f: { path: string; size: number; hash: string }) => [`${root}/${f.path}`, f.size, f.hash]),
    ).toEqual(withFiles.resources.map((r) => [r.uri, r.size, r.digest]));
    expect(top.resources.map((r) => r.uri)).not.toContain(`${root}/_manifest`);

    const got = await client.request({ method: 'skills/get', params: { uri: withFiles.uri } }, GetResult);
    expect(got.skill).toEqual(withFiles);
    expect(got).toMatchObject({ resultType: 'complete', cacheScope: 'private' });
    expect(got.ttlMs).toBeGreaterThan(0);
  }, 60_000);

  it('pages skills/list without splitting an entry; a bad cursor is -32602', async () => {
    const { core, server } = setup();
    await core.invoke('skills/import-packages', {
      packages: Array.from({ length: SKILLS_PAGE_SIZE + 5 }, (_, i) => ({
        file_name: `p${i}.json`,
        package: smallPackage(`Paged Skill ${String(i).padStart(3, '0')}`),
      })),
    });
    const client = await connect(server);
    const firstPage = await client.request({ method: 'skills/list', params: {} }, ListResult);
    expect(firstPage.skills).toHaveLength(SKILLS_PAGE_SIZE);
    expect(firstPage.nextCursor).toBeTruthy();
    const all = await allSkills(client);
    expect(new Set(all.map((s) => s.uri)).size).toBe(all.length);
    expect(all.filter((s) => String(s.frontmatter.name).startsWith('paged-skill-'))).toHaveLength(
      SKILLS_PAGE_SIZE + 5,
    );
    expect(
      (await errorOf(client.request({ method: 'skills/list', params: { cursor: 'zz' } }, ListResult))).code,
    ).toBe(-32602);
  }, 60_000);
});

describe('mcp serve: the catalog kept current', () => {
  it('follows an import, a save, a delete and a workspace switch, announcing each as resources/list_changed', async () => {
    const { core, server } = setup({ mode: 'web' });
    const client = await connect(server);
    let announced = 0;
    client.setNotificationHandler(
      z.object({ method: z.literal('notifications/resources/list_changed') }).passthrough() as never,
      () => {
        announced++;
      },
    );
    const names = async () => (await allSkills(client)).map((s) => s.frontmatter.name as string);
    const waitFor = async (cond: () => boolean) => {
      for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 20));
      expect(cond()).toBe(true);
    };
    expect(await names()).not.toContain('fresh-one');

    await core.invoke('skills/import-package', { package: smallPackage('Fresh One') });
    await waitFor(() => announced >= 1);
    expect(await names()).toContain('fresh-one');
    const before = (await allSkills(client)).find((s) => s.frontmatter.name === 'fresh-one')!;

    const seen = announced;
    await core.invoke('skills/import-package', {
      package: smallPackage('Fresh One', '1.1.0', { description: 'Changed words.' }),
    });
    await waitFor(() => announced > seen);
    const after = (await allSkills(client)).find((s) => s.frontmatter.name === 'fresh-one')!;
    expect(after.frontmatter.description).toBe('Changed words.');
    expect(after.resources[0]!.digest).not.toBe(before.resources[0]!.digest);

    const seen2 = announced;
    await core.invoke('skills/delete', { name: 'Fresh One', scope: 'account' });
    await waitFor(() => announced > seen2);
    expect(await names()).not.toContain('fresh-one');

    // A workspace switch: its skills are served, and one of them hides the account skill it names.
    const ws = join(tempDir(), 'ws');
    mkdirSync(ws);
    await core.invoke('workspace/open', { path: ws });
    await core.invoke('skills/import-package', {
      package: smallPackage('Summarize', '9.0.0', { description: 'The workspace one.' }),
      scope: 'workspace',
    });
    const seen3 = announced;
    await waitFor(() => announced > seen3);
    const summarize = (await allSkills(client)).filter((s) => s.frontmatter.name === 'summarize');
    expect(summarize).toHaveLength(1);
    expect(summarize[0]!.frontmatter.description).toBe('The workspace one.');
  }, 60_000);
});

describe('mcp serve: 2026-07-28', () => {
  it('answers modern requests with no handshake: server/discover, resultType, cache hints, listen', async () => {
    const { core, server } = setup();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    closers.push(() => server.close());
    const replies = new Map<number, Record<string, unknown>>();
    a.onmessage = (m: JSONRPCMessage) => {
      const r = m as { id?: number };
      if (r.id !== undefined) replies.set(r.id, m as Record<string, unknown>);
    };
    await a.start();
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const ask = async (id: number, method: string, params: Record<string, unknown> = {}) => {
      await a.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta } });
      for (let i = 0; i < 500 && !replies.has(id); i++) await new Promise((r) => setTimeout(r, 10));
      return replies.get(id) as { result?: Record<string, unknown>; error?: { code: number } };
    };
    const discovered = await ask(1, 'server/discover');
    expect(discovered.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      capabilities: { extensions: { 'io.modelcontextprotocol/skills': { directoryRead: true } } },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'skilldesk' } },
      cacheScope: 'private',
    });
    const tools = await ask(2, 'tools/list');
    expect(tools.result).toMatchObject({ resultType: 'complete', cacheScope: 'private' });
    expect((tools.result!.tools as unknown[]).length).toBe(6);
    expect(tools.result!.ttlMs).toBeGreaterThan(0);
    const listed = await ask(3, 'resources/list');
    expect(listed.result).toMatchObject({ resultType: 'complete', cacheScope: 'private' });
    const uri = (listed.result!.resources as Array<{ uri: string }>)[0]!.uri;
    expect((await ask(4, 'resources/read', { uri })).result).toMatchObject({
      resultType: 'complete',
      cacheScope: 'private',
    });
    expect((await ask(5, 'skills/list')).result).toMatchObject({ resultType: 'complete' });
    expect((await ask(6, 'skills/get')).error?.code).toBe(-32602);
    // subscriptions/listen: acknowledged with what is honored, then a change on the stream.
    const frames: Array<{ method?: string; params?: Record<string, unknown> }> = [];
    a.onmessage = (m: JSONRPCMessage) => {
      const r = m as { id?: number; method?: string };
      if (r.id !== undefined && r.method === undefined) replies.set(r.id, m as Record<string, unknown>);
      else frames.push(m as never);
    };
    await a.send({
      jsonrpc: '2.0',
      id: 20,
      method: 'subscriptions/listen',
      params: { notifications: { resourcesListChanged: true, promptsListChanged: true }, _meta },
    });
    for (let i = 0; i < 500 && frames.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(frames[0]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: {
        notifications: { resourcesListChanged: true },
        _meta: { 'io.modelcontextprotocol/subscriptionId': 20 },
      },
    });
    await core.invoke('skills/import-package', { package: smallPackage('Heard On The Stream') });
    for (let i = 0; i < 500 && frames.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(frames[1]).toMatchObject({
      method: 'notifications/resources/list_changed',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 20 } },
    });
    expect(replies.has(20)).toBe(false);
    // The client ends it by cancelling the request; nothing more is sent on it.
    await a.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 20 } });
    await core.invoke('skills/delete', { name: 'Heard On The Stream', scope: 'account' });
    await new Promise((r) => setTimeout(r, 300));
    expect(frames).toHaveLength(2);
    // A version of neither era: -32022 naming the ones served.
    await a.send({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/list',
      params: { _meta: { ..._meta, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
    });
    for (let i = 0; i < 500 && !replies.has(7); i++) await new Promise((r) => setTimeout(r, 10));
    expect(replies.get(7)).toMatchObject({
      error: {
        code: -32022,
        data: { supported: expect.arrayContaining(['2026-07-28', '2025-11-25']), requested: '2099-01-01' },
      },
    });
  }, 60_000);
});

describe('mcp serve: a client connecting while the catalog is built', () => {
  it('answers tools/list at once and tells a skills/list that asked for progress how far the build got', async () => {
    const host = testHost({ home: tempDir() });
    const plain = createInProcessClient(host);
    await plain.invoke('skills/import-packages', {
      packages: Array.from({ length: 150 }, (_, i) => ({
        file_name: `b${i}.json`,
        package: smallPackage(`Built Skill ${String(i).padStart(3, '0')}`),
      })),
    });
    // The store's second page of changes is held until the test lets it go, so the build is
    // caught half done whatever the machine's speed.
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let pages = 0;
    const core: typeof plain = {
      ...plain,
      invoke: (async (channel: string, req: unknown, o?: unknown) => {
        if (channel === 'skills/changes' && ++pages === 2) await held;
        return (plain.invoke as (c: string, r: unknown, o?: unknown) => Promise<unknown>)(channel, req, o);
      }) as typeof plain.invoke,
    };
    const server = createSkillsMcpServer(core, { version: 'test' });
    const client = await connect(server);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('search_skills');
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const listed = client.request({ method: 'skills/list', params: {} }, ListResult, {
      onprogress: (p) => {
        progress.push(p);
        release();
      },
    });
    const first = await listed;
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]!.total).toBeGreaterThan(progress[0]!.progress);
    expect(progress[0]!.message).toMatch(/Preparing the skill catalog \(\d+%\)/);
    expect(first.skills.length).toBeGreaterThan(0);
    expect(
      (await allSkills(client)).filter((s) => String(s.frontmatter.name).startsWith('built-skill-')),
    ).toHaveLength(150);
  }, 60_000);
});
