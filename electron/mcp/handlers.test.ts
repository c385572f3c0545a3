// The tools/* slice: servers saved to mcp.json in the mcpServers shape (other keys kept, renamed,
// removed, a clash refused, a broken file reported and left alone), tested from a draft, and
// approvals listed, revoked and the read-only preference kept in the store.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallContext } from '../contract/channels.js';
import { openDatabase } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { sqliteApprovalStore } from './approvals.js';
import { createMcpSlice } from './handlers.js';

const everything = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
const ctx: CallContext = { transport: 'in-process' };
const stops: Array<() => unknown> = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

function slice(workspace?: string) {
  const home = tempDir();
  const db = openDatabase(join(home, 'agents.db'));
  const events: string[] = [];
  const s = createMcpSlice({
    home: () => home,
    workspace: () => workspace,
    env: process.env,
    events: { emit: (e) => events.push(e) },
    approvalStore: () => sqliteApprovalStore(db),
  });
  stops.push(
    () => s.dispose(),
    () => db.close(),
  );
  return { s, home, events, h: s.handlers };
}

describe('tools/* handlers', () => {
  it('adds, renames and removes servers in mcp.json, keeping what else the file holds', async () => {
    const ws = tempDir();
    const { h, home } = slice(ws);
    writeFileSync(
      join(home, 'mcp.json'),
      JSON.stringify({ theirKey: 1, mcpServers: { keep: { command: 'x' } } }),
    );
    await h['tools/save-server'](
      { scope: 'account', name: 'files', config: { command: 'npx', args: ['-y', 'fs'] } },
      ctx,
    );
    let file = JSON.parse(readFileSync(join(home, 'mcp.json'), 'utf8'));
    expect(file).toEqual({
      theirKey: 1,
      mcpServers: { keep: { command: 'x' }, files: { command: 'npx', args: ['-y', 'fs'] } },
    });
    const renamed = await h['tools/save-server'](
      { scope: 'account', name: 'disk', previous_name: 'files', config: { command: 'npx', disabled: true } },
      ctx,
    );
    expect(renamed.servers.map((s) => [s.name, s.config.disabled ?? false])).toEqual([
      ['keep', false],
      ['disk', true],
    ]);
    await expect(
      Promise.resolve().then(() =>
        h['tools/save-server']({ scope: 'account', name: 'KEEP', config: { command: 'y' } }, ctx),
      ),
    ).rejects.toThrow(/already exists/);
    await h['tools/save-server'](
      { scope: 'workspace', name: 'keep', config: { url: 'http://127.0.0.1:9/mcp' } },
      ctx,
    );
    const both = await h['tools/list-servers']({}, ctx);
    expect(both.servers.map((s) => [s.name, s.scope, s.overridden])).toEqual([
      ['keep', 'workspace', false],
      ['keep', 'account', true],
      ['disk', 'account', false],
    ]);
    await h['tools/remove-server']({ scope: 'account', name: 'disk' }, ctx);
    file = JSON.parse(readFileSync(join(home, 'mcp.json'), 'utf8'));
    expect(Object.keys(file.mcpServers)).toEqual(['keep']);
    await expect(
      Promise.resolve().then(() => h['tools/remove-server']({ scope: 'account', name: 'disk' }, ctx)),
    ).rejects.toThrow(/no MCP server named "disk"/);
  });

  it('reports a broken mcp.json without changing it, and refuses a workspace save without a workspace', async () => {
    const { h, home } = slice();
    writeFileSync(join(home, 'mcp.json'), '{ not json');
    const listed = await h['tools/list-servers']({}, ctx);
    expect(listed.error).toMatch(/not JSON/);
    await expect(
      Promise.resolve().then(() =>
        h['tools/save-server']({ scope: 'account', name: 'a', config: { command: 'b' } }, ctx),
      ),
    ).rejects.toThrow(/fix it by hand/);
    expect(readFileSync(join(home, 'mcp.json'), 'utf8')).toBe('{ not json');
    await expect(
      Promise.resolve().then(() =>
        h['tools/save-server']({ scope: 'workspace', name: 'a', config: { command: 'b' } }, ctx),
      ),
    ).rejects.toThrow(/no workspace is open/);
  });

  it('tests a draft config before it is saved, and keeps approvals and the read-only preference', async () => {
    const { h } = slice();
    const r = await h['tools/test-server'](
      { name: 'draft', config: { command: process.execPath, args: [everything, 'stdio'] } },
      ctx,
    );
    expect(r.tools.map((t) => t.name)).toContain('echo');
    await expect(Promise.resolve().then(() => h['tools/test-server']({ name: 'nope' }, ctx))).rejects.toThrow(
      /No MCP server named "nope"/,
    );
    expect(await h['tools/set-auto-read-only']({ enabled: true }, ctx)).toMatchObject({
      auto_read_only: true,
    });
    await expect(
      Promise.resolve().then(() => h['tools/revoke-approval']({ server: 's', tool: 't' }, ctx)),
    ).rejects.toThrow(/not always allowed/);
    expect(await h['tools/answer-approval']({ approval_id: 'gone', decision: 'once' }, ctx)).toEqual({
      answered: false,
    });
  }, 30_000);
});
