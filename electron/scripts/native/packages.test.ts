// Real wheels from PyPI (python-docx and python-pptx with lxml, openpyxl with pandas, Pillow, pypdf,
// pypdfium2) installed once into one virtual environment under a temporary home, then each library
// creates a real file in the OS sandbox and reads it back.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Result } from '../../contract/channels.js';
import { createHost } from '../../host.js';
import { quietLogger, skipWithout } from '../../test-support/index.js';
import { nativePythonOrNull, pypiReachable } from '../../test-support/native-env.js';
import { invokeChannel } from '../../transport/dispatch.js';
import { acceptNativeRuntime, revokeNativeRuntime } from './consent.js';
import { scanImports } from './imports.js';
import { type NativeSkillFile, nativeReason, runNativeSkillScript, scriptRuntimeFor } from './run.js';
import { nativeSandboxSupport } from './sandbox.js';
import { compiledPackages, installNativeEnv, type NativeEnvRecord, nativeEnv } from './venv.js';

const python = nativePythonOrNull();
const pypi = pypiReachable(python, 'pypdf');

const SKILL: Record<string, string> = {
  'SKILL.md': '---\nname: office\ndescription: makes office files\n---\nUse the scripts.\n',
  'scripts/docx_roundtrip.py': `"""Write a Word file and read it back."""
import sys
from docx import Document
d = Document()
d.add_heading("Quarterly report", 1)
d.add_paragraph(sys.argv[1])
d.save("out/report.docx")
print([p.text for p in Document("out/report.docx").paragraphs])
`,
  'scripts/pptx_roundtrip.py': `from pptx import Presentation
from pptx.util import Inches
p = Presentation()
s = p.slides.add_slide(p.slide_layouts[1])
s.shapes.title.text = "Deck title"
p.save("out/deck.pptx")
print(Presentation("out/deck.pptx").slides[0].shapes.title.text)
`,
  'scripts/xlsx_pandas.py': `import pandas as pd
from openpyxl import load_workbook
rows = pd.read_csv("inputs/sales.csv")
rows["total"] = rows["qty"] * rows["price"]
rows.to_excel("out/sales.xlsx", index=False)
wb = load_workbook("out/sales.xlsx")
print(wb.active["D3"].value, pd.read_excel("out/sales.xlsx")["total"].sum())
`,
  'scripts/image.py': `from PIL import Image, ImageDraw
im = Image.new("RGB", (64, 32), "white")
ImageDraw.Draw(im).rectangle((8, 8, 24, 24), fill=(255, 0, 0))
im.save("out/box.png")
back = Image.open("out/box.png")
print(back.size, back.getpixel((10, 10)))
`,
  'scripts/pdf.py': `from pypdf import PdfWriter, PdfReader
import pypdfium2 as pdfium
w = PdfWriter()
w.add_blank_page(width=200, height=100)
w.add_metadata({"/Title": "Made in the sandbox"})
with open("out/blank.pdf", "wb") as f:
    w.write(f)
r = PdfReader("out/blank.pdf")
doc = pdfium.PdfDocument("out/blank.pdf")
print(r.metadata.title, len(doc), round(doc[0].get_width()))
`,
};
const files: NativeSkillFile[] = Object.entries(SKILL).map(([path, text]) => ({
  path,
  bytes: new TextEncoder().encode(text),
}));

const support = nativeSandboxSupport();
const missing = !python
  ? 'no Python 3.11+ (python3 or SKILLDESK_PYTHON)'
  : !pypi
    ? 'PyPI is not reachable'
    : !support.ok
      ? support.reason
      : null;

describe.skipIf(skipWithout(missing, 'compiled packages in the native runtime'))(
  'compiled packages in the native runtime',
  () => {
    // One home (and one environment) for the whole file: test-support's temp folders go after each test.
    const home = mkdtempSync(join(tmpdir(), 'skilldesk-native-pkgs-test-'));
    let env: NativeEnvRecord;
    afterAll(() => rmSync(home, { recursive: true, force: true }));

    beforeAll(async () => {
      const scan = await scanImports(
        python!.executable,
        Object.fromEntries(Object.entries(SKILL).filter(([p]) => p.endsWith('.py'))),
      );
      env = await installNativeEnv(
        home,
        'office',
        scan.packages.map((p) => p.distribution),
        { from: 'imports', python: python! },
      );
    }, 480_000);

    const run = (script: string, extra: Partial<Parameters<typeof runNativeSkillScript>[0]> = {}) =>
      runNativeSkillScript({ home, skill: 'office', files, script, ...extra });

    it('records every wheel by SHA-256 and knows which have compiled code', () => {
      expect(env.from).toBe('imports');
      expect(env.requirements.sort()).toEqual(
        ['Pillow', 'openpyxl', 'pandas', 'pypdf', 'pypdfium2', 'python-docx', 'python-pptx'].sort(),
      );
      for (const w of env.wheels) expect(w.sha256).toMatch(/^[0-9a-f]{64}$/);
      const compiled = compiledPackages(env);
      for (const n of ['lxml', 'pandas', 'numpy', 'pillow', 'pypdfium2']) expect(compiled).toContain(n);
      expect(compiled).not.toContain('python-docx');
      expect(nativeEnv(home, 'office')?.wheels).toHaveLength(env.wheels.length);
      const choice = scriptRuntimeFor(home, 'office');
      expect(choice.runtime).toBe('native');
      expect(choice.reason).toBe(nativeReason(compiled));
      expect(choice.reason).toMatch(
        /^its scripts need .*lxml.*, which have compiled code: they run in the OS sandbox$/,
      );
    });

    it('python-docx writes and reads a Word file', async () => {
      const r = await run('scripts/docx_roundtrip.py', { argv: ['Sales rose 4%.'] });
      expect(r.stderr).toBe('');
      expect(r.exit_code).toBe(0);
      expect(r.stdout.trim()).toBe("['Quarterly report', 'Sales rose 4%.']");
      const docx = r.files.find((f) => f.path === 'out/report.docx');
      expect(Buffer.from(docx!.bytes.subarray(0, 2)).toString()).toBe('PK');
    });

    it('python-pptx writes and reads a deck', async () => {
      const r = await run('scripts/pptx_roundtrip.py');
      expect(r.exit_code, r.stderr).toBe(0);
      expect(r.stdout.trim()).toBe('Deck title');
      expect(r.files.map((f) => f.path)).toEqual(['out/deck.pptx']);
    });

    it('pandas and openpyxl turn the user’s CSV into a workbook', async () => {
      const csv = join(home, 'sales.csv');
      writeFileSync(csv, 'item,qty,price\npen,2,1.5\nink,3,4\n');
      const r = await run('scripts/xlsx_pandas.py', { inputs: [{ name: 'sales.csv', path: csv }] });
      expect(r.exit_code, r.stderr).toBe(0);
      expect(r.stdout.trim()).toBe('12 15');
      expect(r.files[0]?.path).toBe('out/sales.xlsx');
      expect(readFileSync(csv, 'utf8')).toContain('pen,2,1.5');
    });

    it('Pillow draws a PNG and reads its pixels', async () => {
      const r = await run('scripts/image.py');
      expect(r.exit_code, r.stderr).toBe(0);
      expect(r.stdout.trim()).toBe('(64, 32) (255, 0, 0)');
      expect(Buffer.from(r.files[0]!.bytes.subarray(1, 4)).toString()).toBe('PNG');
    });

    it('pypdf writes a PDF that pypdfium2 renders the size of', async () => {
      const r = await run('scripts/pdf.py');
      expect(r.exit_code, r.stderr).toBe(0);
      expect(r.stdout.trim()).toBe('Made in the sandbox 1 200');
    });

    it('the environment is read-only to the script', async () => {
      const r = await run('scripts/image.py', {
        files: [
          ...files,
          {
            path: 'scripts/tamper.py',
            bytes: new TextEncoder().encode(
              'import PIL, os\ntry:\n    open(os.path.join(os.path.dirname(PIL.__file__), "x.py"), "w")\n    print("WROTE")\nexcept OSError as e:\n    print("refused", e.errno)\n',
            ),
          },
        ],
        script: 'scripts/tamper.py',
      });
      expect(r.stdout.trim()).toBe('refused 30');
    });

    it('the skill’s scripts are refused (by name) until the OS-sandbox runtime is accepted, then run there', async () => {
      const host = createHost({ home, env: {}, mode: 'test', logger: quietLogger });
      try {
        const call = async (channel: string, req: unknown) =>
          (await invokeChannel(
            host.handlers,
            channel,
            req,
            { transport: 'in-process' },
            quietLogger,
          )) as Result<Record<string, unknown>>;
        const imported = await call('skills/import-files', {
          files: Object.entries(SKILL).map(([path, text]) => ({
            path: `office/${path}`,
            data_base64: Buffer.from(text).toString('base64'),
          })),
          scope: 'account',
        });
        expect(imported.ok).toBe(true);
        revokeNativeRuntime(home, 'office');
        const refused = await call('scripts/run', { name: 'office', script: 'scripts/image.py' });
        expect(refused.ok).toBe(false);
        if (!refused.ok) {
          expect(refused.error.code).toBe('FORBIDDEN');
          expect(refused.error.message).toMatch(
            /skill "office": its scripts need .*pillow.*compiled code: they run in the OS sandbox/,
          );
          expect(refused.error.message).toContain('Pyodide cannot run it');
          expect(refused.error.message).toContain('skilldesk skills native-runtime accept "office"');
        }
        acceptNativeRuntime(home, 'office', compiledPackages(env));
        const ran = await call('scripts/run', { name: 'office', script: 'scripts/image.py' });
        expect(ran.ok && ran.value.exit_code).toBe(0);
        expect(ran.ok && ran.value.stdout).toContain('(64, 32) (255, 0, 0)');
      } finally {
        await host.dispose();
      }
    });
  },
);
