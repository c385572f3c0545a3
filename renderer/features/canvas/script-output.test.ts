// @vitest-environment jsdom
// Files a skill's script wrote, opened in the canvas: a real Agent Skills folder whose script
// writes a CSV, a Markdown note and a PNG in the sandbox; each opens as what it is, read from the
// main process only when asked; a file no longer kept says so.
import { afterEach, describe, expect, it } from 'vitest';
import { createStores } from '../../stores.js';
import { inProcessClient } from '../../test-support.js';
import { openScriptOutput, scriptOutputsOf } from './script-output.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const b64 = (s: string) => Buffer.from(s).toString('base64');
const SKILL = `---
name: report-maker
description: Writes a small report as files. Use when the user asks for a report file.
---
Run scripts/report.py to write out/table.csv, out/notes.md and out/dot.png.
`;
const SCRIPT = `import base64, os
os.makedirs("out", exist_ok=True)
with open("out/table.csv", "w") as f:
    f.write("city,temp\\nOslo,4\\nLima,19\\n")
with open("out/notes.md", "w") as f:
    f.write("# Notes\\n\\n**Two** cities.")
with open("out/dot.png", "wb") as f:
    f.write(base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="))
print("done")
`;

describe('script outputs in the canvas', () => {
  it('keeps only well-formed file entries of a run_script result', () => {
    expect(
      scriptOutputsOf({
        run_id: 'r1',
        script: 's.py',
        files: [{ path: 'out/a.csv', media_type: 'text/csv', size: 3 }, { path: 7 }],
      }),
    ).toEqual({
      runId: 'r1',
      script: 's.py',
      files: [{ path: 'out/a.csv', media_type: 'text/csv', size: 3 }],
    });
    expect(scriptOutputsOf({ run_id: 'r1', files: [] })).toBeNull();
    expect(scriptOutputsOf({ text: 'hi' })).toBeNull();
  });

  it('opens what a script wrote as a table, Markdown and an image', async () => {
    const { client, host } = inProcessClient();
    cleanups.push(() => host.dispose());
    await client.invoke('skills/import-files', {
      scope: 'account',
      files: [
        { path: 'report-maker/SKILL.md', data_base64: b64(SKILL) },
        { path: 'report-maker/scripts/report.py', data_base64: b64(SCRIPT) },
      ],
    });
    const run = await client.invoke('scripts/run', { name: 'report-maker', script: 'scripts/report.py' });
    expect(run).toMatchObject({ exit_code: 0, stdout: 'done\n' });
    const found = scriptOutputsOf(run)!;
    expect(found.files.map((f) => f.path)).toEqual(['out/dot.png', 'out/notes.md', 'out/table.csv']);

    const stores = createStores(client);
    const file = (p: string) => found.files.find((f) => f.path === p)!;
    await openScriptOutput(
      client,
      stores.canvas,
      found.runId,
      file('out/table.csv'),
      'Written by scripts/report.py',
    );
    expect(stores.canvas.getState().doc).toMatchObject({
      title: 'table.csv',
      fileName: 'table.csv',
      source: 'Written by scripts/report.py',
      content: { kind: 'csv', text: 'city,temp\nOslo,4\nLima,19\n' },
    });
    await openScriptOutput(client, stores.canvas, found.runId, file('out/notes.md'), 's');
    expect(stores.canvas.getState().doc?.content).toEqual({
      kind: 'markdown',
      text: '# Notes\n\n**Two** cities.',
    });
    await openScriptOutput(client, stores.canvas, found.runId, file('out/dot.png'), 's');
    expect(stores.canvas.getState().doc?.content).toMatchObject({ kind: 'image', media_type: 'image/png' });

    await openScriptOutput(client, stores.canvas, 'no-such-run', file('out/notes.md'), 's');
    expect(stores.canvas.getState().doc).toBeNull();
    expect(stores.canvas.getState().error?.message).toMatch(
      /^Couldn’t open out\/notes\.md: .*Run the script again/,
    );
  }, 120_000);
});
