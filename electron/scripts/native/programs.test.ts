import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { skipWithout } from '../../test-support/index.js';
import { scanImports } from './imports.js';
import { locatePrograms, missingProgramHint, missingProgramsSentence } from './programs.js';

const python = (() => {
  const r = spawnSync(process.env.SKILLDESK_PYTHON || 'python3', ['-c', 'import sys;print(sys.executable)'], {
    encoding: 'utf8',
  });
  return r.status === 0 ? r.stdout.trim() : null;
})();

// Shaped like the document skills' scripts: a list literal, a list through a variable and a sum,
// a command string, shutil.which, and calls that merely share a name with subprocess's.
const SCRIPTS: Record<string, string> = {
  'scripts/thumbnail.py': `import subprocess
def convert(path, out):
    subprocess.run(["soffice", "--headless", "--convert-to", "pdf", path], capture_output=True)
    subprocess.run(["pdftoppm", "-jpeg", out, "slide"], check=True)
`,
  'scripts/recalc.py': `import subprocess, shutil, asyncio
cmd = ["soffice", "--headless", "macro"]
cmd = ["timeout", "30"] + cmd
subprocess.run(cmd, capture_output=True)
has_qpdf = shutil.which("/usr/bin/qpdf")
asyncio.run(main())
app.run("0.0.0.0")
`,
  'scripts/shell.py': `import os, sys, subprocess
os.system("pandoc in.md -o out.docx")
subprocess.run([sys.executable, "other.py"])
subprocess.run(["python3", "other.py"])
`,
};

describe.skipIf(skipWithout(python ? null : 'no python3', 'programs a skill’s scripts start'))(
  'programs a skill’s scripts start',
  () => {
    it('are read from the scripts’ calls, whatever way the command is written', async () => {
      const scan = await scanImports(python!, SCRIPTS);
      expect(scan.programs).toEqual([
        { program: 'pandoc', files: ['scripts/shell.py'] },
        { program: 'pdftoppm', files: ['scripts/thumbnail.py'] },
        { program: 'qpdf', files: ['scripts/recalc.py'] },
        { program: 'soffice', files: ['scripts/recalc.py', 'scripts/thumbnail.py'] },
      ]);
    });

    it('include the programs a wrapper package starts for the script (pdf2image → Poppler)', async () => {
      // Anthropic's pdf skill: convert_pdf_to_images.py names no program, pdf2image starts them.
      const scan = await scanImports(python!, {
        'scripts/convert_pdf_to_images.py':
          'from pdf2image import convert_from_path\nimages = convert_from_path("in.pdf", dpi=200)\n',
      });
      expect(scan.programs.map((p) => p.program)).toEqual(['pdfinfo', 'pdftocairo', 'pdftoppm']);
      expect(scan.programs[0]!.files).toEqual(['scripts/convert_pdf_to_images.py']);
      expect(scan.packages.map((p) => p.distribution)).toEqual(['pdf2image']);
    });

    it('are found or named as missing, with how to install them', async () => {
      const scan = await scanImports(python!, SCRIPTS);
      const here = new Set(['soffice', 'qpdf']);
      const programs = locatePrograms(scan.programs, (p) => (here.has(p) ? `/usr/bin/${p}` : null));
      expect(programs.find((p) => p.program === 'soffice')).toEqual({
        program: 'soffice',
        product: 'LibreOffice',
        path: '/usr/bin/soffice',
        files: ['scripts/recalc.py', 'scripts/thumbnail.py'],
      });
      const sentence = missingProgramsSentence(programs)!;
      expect(sentence).toContain(
        'pdftoppm (Poppler), which scripts/thumbnail.py starts (install: apt install poppler-utils',
      );
      expect(sentence).toContain('pandoc, which scripts/shell.py starts');
      expect(sentence).not.toContain('soffice');
    });
  },
);

describe('the hint of a run that lacked a program', () => {
  const none = () => null;
  it('names the missing program and how to install it, from a traceback or a printed error', () => {
    const tb = `Traceback (most recent call last):\nFileNotFoundError: [Errno 2] No such file or directory: 'soffice'`;
    expect(missingProgramHint(tb, none)).toMatch(
      /^the script starts soffice \(LibreOffice\), which is not installed on this computer: apt install libreoffice/,
    );
    expect(missingProgramHint(`Error: [Errno 2] No such file or directory: 'pdftoppm'`, none)).toContain(
      'pdftoppm (Poppler)',
    );
  });
  it('says nothing when the program is installed or the missing thing is a file', () => {
    expect(
      missingProgramHint(`[Errno 2] No such file or directory: 'soffice'`, () => '/usr/bin/soffice'),
    ).toBeUndefined();
    expect(
      missingProgramHint(`[Errno 2] No such file or directory: 'inputs/form.pdf'`, none),
    ).toBeUndefined();
  });
});
