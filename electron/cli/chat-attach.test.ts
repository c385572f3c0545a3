// `skilldesk chat --attach FILE`: a PDF's text (page markers, the cut said), a text file and an
// image reach the loopback model; a scanned PDF, a binary file and a missing path exit 2 naming
// the file and what to do.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startLoopbackProvider } from '../llm/index.js';
import { runCli, tempDir } from '../test-support/index.js';
import { makePdf } from '../test-support/make-pdf.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

describe('skilldesk chat --attach', () => {
  it('sends a PDF’s text, a text file and an image to the model', async () => {
    const provider = await startLoopbackProvider({ script: [{ text: 'Read them.' }] });
    cleanups.push(() => provider.close());
    const dir = tempDir();
    const pdf = join(dir, 'minutes.pdf');
    writeFileSync(pdf, makePdf([{ lines: ['Minutes of the board'] }, { lines: ['Decision: ship in May'] }]));
    writeFileSync(join(dir, 'notes.md'), '# Notes\nbring snacks');
    writeFileSync(join(dir, 'dot.png'), PNG);
    const g = ['--home', tempDir(), '--json'];
    const r = await runCli(
      [
        ...g,
        'chat',
        'Summarize these',
        '--attach',
        pdf,
        '--attach',
        join(dir, 'notes.md'),
        '--attach',
        join(dir, 'dot.png'),
        '--provider',
        'openai',
        '--model',
        'gpt-4.1-mini',
        '--base-url',
        provider.url,
      ],
      { OPENAI_API_KEY: 'sk-test' },
    );
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.type === 'attachment')).toEqual([
      expect.objectContaining({
        name: 'minutes.pdf',
        media_type: 'application/pdf',
        pages: 2,
        pages_read: 2,
        cut: null,
      }),
      expect.objectContaining({ name: 'notes.md', media_type: 'text/markdown' }),
      expect.objectContaining({ name: 'dot.png', media_type: 'image/png', bytes: PNG.length }),
    ]);
    const body = provider.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };
    const user = JSON.stringify(body.messages.filter((m) => m.role === 'user').at(-1)!.content);
    expect(user).toContain('<attachment name=\\"minutes.pdf\\">');
    expect(user).toContain('--- page 2 of 2 ---\\n\\nDecision: ship in May');
    expect(user).toContain('bring snacks');
    expect(user).toContain('data:image/png;base64,');
  });

  it('exits 2 for a scanned PDF, a binary file or a missing path, sending nothing', async () => {
    const dir = tempDir();
    const home = tempDir();
    writeFileSync(join(dir, 'scan.pdf'), makePdf([{ image: true }]));
    writeFileSync(join(dir, 'blob.bin'), Buffer.from([0, 1, 2, 0xff, 0xfe]));
    const scan = await runCli(['--home', home, 'chat', 'hi', '--attach', join(dir, 'scan.pdf')]);
    expect(scan.code).toBe(2);
    expect(scan.stderr).toMatch(/scan\.pdf has no text — it looks scanned/);
    const bin = await runCli(['--home', home, 'chat', 'hi', '--attach', join(dir, 'blob.bin')]);
    expect(bin.code).toBe(2);
    expect(bin.stderr).toMatch(/not UTF-8 text, a PDF or a PNG/);
    const missing = await runCli(['--home', home, 'chat', 'hi', '--attach', join(dir, 'nope.txt')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read it \(ENOENT\)/);
    const sessions = await runCli(['--home', home, '--json', 'sessions']);
    expect(sessions.json().sessions).toEqual([]);
  });
});
