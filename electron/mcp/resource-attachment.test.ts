// A resource of an MCP server attached to a message, against the real server-everything
// over stdio: tools/list-resources lists the enabled servers' resources (a disabled one's not, a
// failing one reported), tools/read-resource maps a text resource to a text attachment (and a
// base64 blob of a text type too) and a PNG/JPEG/GIF/WebP blob to an image attachment; other
// binary and oversized content is refused with what to do.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallContext } from '../contract/channels.js';
import { isAppError } from '../contract/errors.js';
import { openDatabase } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { sqliteApprovalStore } from './approvals.js';
import { createMcpSlice } from './handlers.js';
import { resourceAttachment, resourceName } from './resource-attachment.js';

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

function slice(servers: Record<string, unknown>) {
  const home = tempDir();
  writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: servers }));
  const db = openDatabase(join(home, 'agents.db'));
  const s = createMcpSlice({
    home: () => home,
    workspace: () => undefined,
    env: process.env,
    events: { emit: () => {} },
    approvalStore: () => sqliteApprovalStore(db),
  });
  stops.push(
    () => s.dispose(),
    () => db.close(),
  );
  return s.handlers;
}

const error = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return isAppError(e) ? `${e.code}: ${e.message}` : String(e);
  }
  return 'no error';
};

describe('MCP resources as attachments', () => {
  it('lists the enabled servers’ resources and reads a text one as a text attachment', async () => {
    const h = slice({
      everything: { command: process.execPath, args: [everything, 'stdio'] },
      off: { command: process.execPath, args: [everything, 'stdio'], disabled: true },
      broken: { command: join(tempDir(), 'no-such-binary') },
    });
    const list = await h['tools/list-resources']({}, ctx);
    const doc = list.resources.find((r) => r.name === 'architecture.md');
    expect(doc).toEqual({
      server: 'everything',
      uri: 'demo://resource/static/document/architecture.md',
      name: 'architecture.md',
      title: null,
      description: expect.stringContaining('architecture.md'),
      mime_type: 'text/markdown',
      size: null,
    });
    expect(new Set(list.resources.map((r) => r.server))).toEqual(new Set(['everything']));
    expect(list.failed).toEqual([{ server: 'broken', error: expect.any(String) }]);

    const a = await h['tools/read-resource']({ server: 'everything', uri: doc!.uri, name: doc!.name }, ctx);
    expect(a).toEqual({ name: 'architecture.md', media_type: 'text/markdown', text: expect.any(String) });
    const text = 'text' in a ? a.text : '';
    expect(text.length).toBeGreaterThan(100);
    expect(text).toMatch(/^#/m);

    // A resource template's blob of type text/plain decodes to text; the name defaults to the URI's end.
    const blob = await h['tools/read-resource'](
      { server: 'everything', uri: 'demo://resource/dynamic/blob/7' },
      ctx,
    );
    expect(blob).toMatchObject({ name: '7', media_type: 'text/plain' });
    expect('text' in blob ? blob.text : '').toMatch(/^Resource 7: This is a base64 blob/);

    await expect(h['tools/read-resource']({ server: 'off', uri: doc!.uri }, ctx)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining('no enabled MCP server'),
    });
  }, 60_000);

  it('refuses binary and oversized content, saying what to do instead', () => {
    const r = { server: 's', uri: 'file:///x/pic%20one.png' };
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]).toString('base64');
    // A real PNG is an image attachment; bytes that are not the image they claim are refused.
    const realPng =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    expect(resourceAttachment(r, [{ uri: r.uri, mime_type: 'image/png', blob: realPng }])).toEqual({
      name: 'pic one.png',
      media_type: 'image/png',
      data: realPng,
    });
    expect(error(() => resourceAttachment(r, [{ uri: r.uri, mime_type: 'image/png', blob: png }]))).toMatch(
      /^INVALID_INPUT: pic one\.png is not a PNG, JPEG, GIF or WebP image/,
    );
    expect(
      error(() => resourceAttachment(r, [{ uri: r.uri, mime_type: 'image/tiff', blob: realPng }])),
    ).toMatch(/^INVALID_INPUT: pic one\.png: image\/tiff can’t be sent as an image/);
    expect(
      error(() => resourceAttachment(r, [{ uri: r.uri, mime_type: 'application/pdf', blob: png }])),
    ).toMatch(/^INVALID_INPUT: pic one\.png is binary \(application\/pdf\); only text resources and PNG/);
    // A blob claiming text that is not UTF-8 text is binary too.
    expect(error(() => resourceAttachment(r, [{ uri: r.uri, mime_type: 'text/plain', blob: png }]))).toMatch(
      /is binary \(text\/plain\)/,
    );
    expect(
      error(() =>
        resourceAttachment({ ...r, name: 'big.txt' }, [
          { uri: r.uri, mime_type: null, text: 'x'.repeat(600_000) },
        ]),
      ),
    ).toMatch(/^INVALID_INPUT: big\.txt is larger than 512 KiB/);
    expect(error(() => resourceAttachment(r, []))).toMatch(
      /^NOT_FOUND: pic one\.png: .* returned no content/,
    );
    // Several text parts join; no type means text/plain.
    expect(
      resourceAttachment({ ...r, name: 'notes' }, [
        { uri: r.uri, mime_type: null, text: 'a' },
        { uri: r.uri, mime_type: null, text: 'b' },
      ]),
    ).toEqual({ name: 'notes', media_type: 'text/plain', text: 'a\nb' });
    expect(resourceName('demo://x/dir/')).toBe('dir');
  });
});
