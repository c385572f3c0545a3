import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, smallPackage, tempDir } from '../test-support/index.js';
import { decodeUtf8Strict, invalidUtf8Offset } from './strict-utf8.js';

const bad = (before: string, junk: number[], after = '') =>
  Buffer.concat([Buffer.from(before, 'utf8'), Buffer.from(junk), Buffer.from(after, 'utf8')]);

describe('strict UTF-8', () => {
  it('finds the first byte that is not UTF-8', () => {
    expect(invalidUtf8Offset(Buffer.from('héllo → ✓ 𝄞', 'utf8'))).toBe(-1);
    expect(invalidUtf8Offset(bad('abc', [0xff]))).toBe(3);
    expect(invalidUtf8Offset(bad('é', [0xc3]))).toBe(2); // truncated sequence at the end
    expect(invalidUtf8Offset(bad('ab', [0xc0, 0xaf]))).toBe(2); // overlong
    expect(invalidUtf8Offset(bad('x', [0xed, 0xa0, 0x80]))).toBe(1); // a UTF-16 surrogate
    expect(invalidUtf8Offset(bad('', [0xe2, 0x28, 0xa1]))).toBe(0);
    expect(decodeUtf8Strict(Buffer.from('\uFEFF{"a":1}', 'utf8'), 'f')).toBe('{"a":1}');
    expect(() => decodeUtf8Strict(bad('{"a": "', [0x92], '"}'), 'pkg.json')).toThrow(
      /pkg\.json: not valid UTF-8 at byte offset 7 \(byte 0x92\)/,
    );
  });

  it('an import refuses a JSON package with invalid UTF-8 (exit 2, file and offset), nothing stored', async () => {
    const home = tempDir();
    const file = join(tempDir(), 'p.json');
    const json = JSON.stringify(smallPackage('Latin One', '1.0.0', { description: 'caf__' }));
    const at = json.indexOf('__');
    writeFileSync(file, bad(json.slice(0, at), [0xe9], json.slice(at + 2)));
    const r = await runCli(['--home', home, 'skills', 'import', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}: not valid UTF-8 at byte offset ${at} (byte 0xE9)`);
    expect((await runCli(['--home', home, '--json', 'skills', 'list'])).json().skills).not.toContainEqual(
      expect.objectContaining({ name: 'Latin One' }),
    );
  });

  it('an Agent Skills folder with invalid UTF-8 in SKILL.md or a bundled text file is refused, naming it', async () => {
    const home = tempDir();
    const dir = join(tempDir(), 'my-skill');
    mkdirSync(join(dir, 'references'), { recursive: true });
    writeFileSync(join(dir, 'SKILL.md'), bad('---\nname: my-skill\ndescription: d', [0xff], '\n---\nBody'));
    let r = await runCli(['--home', home, 'skills', 'import', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/SKILL\.md: not valid UTF-8 at byte offset 33 \(byte 0xFF\)/);
    expect(r.stderr).not.toMatch(/frontmatter/);

    writeFileSync(join(dir, 'SKILL.md'), '---\nname: my-skill\ndescription: d\n---\nBody');
    writeFileSync(join(dir, 'references', 'notes.md'), bad('ok ', [0x80]));
    r = await runCli(['--home', home, 'skills', 'import', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/references\/notes\.md: not valid UTF-8 at byte offset 3/);

    // A binary file stays a binary resource.
    writeFileSync(join(dir, 'references', 'notes.md'), 'fine');
    writeFileSync(join(dir, 'references', 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0xff]));
    r = await runCli(['--home', home, 'skills', 'import', dir]);
    expect(r.code, r.stderr).toBe(0);
  });
});
