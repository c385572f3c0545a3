// resources/read over `skilldesk mcp serve`, attacked by a client that read server.ts and
// skill-scripts.ts: `skill://` and `skilldesk://script-output/` URIs with `..`, encoded dots and
// slashes, backslashes, double encoding and NUL, and links planted in a run's output folder. None
// may read a file of this machine that is not a served skill file or a run's own output.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli, tempDir } from '../test-support/index.js';

const RUN = '0b0e1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d';
const CANARY = `canary-${Math.random().toString(36).slice(2)}`;
let client: Client;
let home: string;

beforeAll(async () => {
  home = tempDir();
  const skill = join(home, 'src', 'notes');
  mkdirSync(join(skill, 'references'), { recursive: true });
  writeFileSync(join(skill, 'SKILL.md'), '---\nname: notes\ndescription: Notes\n---\nRead the notes.\n');
  writeFileSync(join(skill, 'references', 'a.md'), 'A\n');
  expect((await runCli(['--home', home, 'skills', 'import', skill])).code).toBe(0);
  // Secrets of this machine beside and above the outputs, and a run folder with links planted in it.
  const outputs = join(home, 'cache', 'script-outputs');
  const secret = join(home, 'secret');
  mkdirSync(secret, { recursive: true });
  writeFileSync(join(secret, 'id_rsa'), `KEY ${CANARY}`);
  writeFileSync(join(home, 'secret.txt'), `TOP ${CANARY}`);
  mkdirSync(join(outputs, RUN, 'out'), { recursive: true });
  writeFileSync(join(outputs, 'beside.txt'), `BESIDE ${CANARY}`);
  writeFileSync(join(outputs, RUN, 'out', 'ok.txt'), 'fine');
  symlinkSync(join(secret, 'id_rsa'), join(outputs, RUN, 'out', 'leak.txt'));
  symlinkSync(secret, join(outputs, RUN, 'dir'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(PROJECT_ROOT, 'bin', 'skilldesk.mjs'), '--home', home, 'mcp', 'serve'],
    env: { PATH: process.env.PATH ?? '' },
    stderr: 'pipe',
  });
  client = new Client({ name: 'skilldesk-test', version: '1.0.0' });
  await client.connect(transport);
}, 120_000);

afterAll(async () => {
  await client?.close();
});

/** The text of a read, or the error's message: either way it must not hold the canary. */
async function read(uri: string): Promise<{ ok: boolean; text: string }> {
  try {
    const r = await client.readResource({ uri });
    const c = r.contents[0] as { text?: string; blob?: string };
    return { ok: true, text: c.text ?? Buffer.from(c.blob ?? '', 'base64').toString('utf8') };
  } catch (e) {
    return { ok: false, text: (e as Error).message };
  }
}

describe('resources/read URIs with traversal', () => {
  it('reads what it serves: a skill file and a run output', async () => {
    expect(await read('skill://notes/references/a.md')).toEqual({ ok: true, text: 'A\n' });
    expect(await read(`skilldesk://script-output/${RUN}/out/ok.txt`)).toEqual({ ok: true, text: 'fine' });
  });

  it('skill:// never leaves the served files: .., encoded dots and slashes, backslashes, double encoding, NUL', async () => {
    for (const uri of [
      'skill://notes/../../secret.txt',
      'skill://notes/references/../../../secret.txt',
      'skill://notes/%2e%2e/%2e%2e/secret.txt',
      'skill://notes/..%2f..%2fsecret.txt',
      'skill://notes/%252e%252e%252fsecret.txt',
      'skill://notes/..\\..\\secret.txt',
      'skill://notes/references%5c..%5c..%5csecret.txt',
      'skill://notes/references/a.md%00.txt',
      'skill://notes/references/a.md\u0000',
      'skill://../secret.txt',
      'skill://%2e%2e/secret.txt',
      'skill:///etc/passwd',
      'file:///etc/passwd',
    ]) {
      const r = await read(uri);
      expect(r.ok, uri).toBe(false);
      expect(r.text, uri).not.toContain(CANARY);
      expect(r.text, uri).not.toMatch(/root:.*:0:0:/);
    }
  });

  it('skilldesk://script-output/ never leaves the run folder, nor follows a link planted in it', async () => {
    const base = 'skilldesk://script-output/';
    for (const uri of [
      `${base}${RUN}/../beside.txt`,
      `${base}${RUN}/%2e%2e/beside.txt`,
      `${base}${RUN}/..%2fbeside.txt`,
      `${base}${RUN}/..%2f..%2f..%2fsecret.txt`,
      `${base}${RUN}/%252e%252e%252fbeside.txt`,
      `${base}${RUN}/..%5cbeside.txt`,
      `${base}${RUN}/..\\beside.txt`,
      `${base}${RUN}/out/ok.txt%00`,
      `${base}${RUN}/out/ok.txt%00/../../beside.txt`,
      `${base}${RUN}/%2fetc%2fpasswd`,
      `${base}${RUN}/%2e/%2e%2e/beside.txt`,
      `${base}..%2f..%2fsecret.txt/x`,
      `${base}%2e%2e/beside.txt`,
      `${base}../beside.txt`,
      `${base}${RUN}%2f..%2fbeside.txt/x`,
      `${base}${RUN}/out/leak.txt`,
      `${base}${RUN}/dir/id_rsa`,
      `${base}${RUN}/%64ir/id_rsa`,
    ]) {
      const r = await read(uri);
      expect(r.ok, uri).toBe(false);
      expect(r.text, uri).not.toContain(CANARY);
      expect(r.text, uri).not.toMatch(/root:.*:0:0:/);
    }
  });
});
