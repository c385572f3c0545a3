// External programs in the OS sandbox are the user's to grant per skill: not granted, the script's
// call fails naming the program and the command; granted, the real program runs; revoked, refused
// again. With the real sandbox and a program installed here (pdftoppm, else qpdf).
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, skipWithout, tempDir } from '../../test-support/index.js';
import { nativePythonOrNull, seedNativeEnv } from '../../test-support/native-env.js';
import { acceptNativeRuntime } from './consent.js';
import { deniedPrograms, grantPrograms, programGrants, revokePrograms } from './program-grants.js';
import { findProgram } from './programs.js';
import { nativeSandboxSupport } from './sandbox.js';

const PROGRAM = ['pdftoppm', 'qpdf'].find((p) => findProgram(p) !== null) ?? null;
const support = nativeSandboxSupport();
const python = nativePythonOrNull();
const missing = !support.ok
  ? support.reason
  : !python
    ? 'no Python 3.11+'
    : !PROGRAM
      ? 'neither pdftoppm nor qpdf installed'
      : null;

describe('program grants', () => {
  it('are kept per skill and program; what is not granted is covered where it is installed', () => {
    const home = tempDir();
    const here = (p: string) => (p === 'qpdf' || p === 'mytool' ? `/usr/bin/${p}` : null);
    expect(programGrants(home, 's')).toEqual([]);
    grantPrograms(home, 's', ['qpdf']);
    expect(programGrants(home, 's').map((g) => g.program)).toEqual(['qpdf']);
    expect(() => grantPrograms(home, 's', ['../bin/sh'])).toThrow(/not a program name/);
    const denied = deniedPrograms(home, 's', ['mytool'], here);
    expect(denied.map((d) => d.program)).toEqual(['mytool']);
    expect(deniedPrograms(home, 'other', [], here).map((d) => d.program)).toEqual(['qpdf']);
    expect(denied[0]!.script).toContain(`skilldesk skills programs grant "s" mytool`);
    expect(revokePrograms(home, 's', ['qpdf'])).toBe(true);
    expect(revokePrograms(home, 's', ['qpdf'])).toBe(false);
  });

  it('leave a granted program reachable under the other names of its file (soffice, libreoffice)', () => {
    // Debian's /usr/bin/soffice and /usr/bin/libreoffice are links to one script.
    const home = tempDir();
    const bin = tempDir();
    writeFileSync(join(bin, 'soffice.real'), '#!/bin/sh\n', { mode: 0o755 });
    for (const name of ['soffice', 'libreoffice']) symlinkSync(join(bin, 'soffice.real'), join(bin, name));
    const here = (p: string) => (p === 'soffice' || p === 'libreoffice' ? join(bin, p) : null);
    const before = deniedPrograms(home, 's', [], here);
    // One stand-in covers the one file, named after the first name and saying the other.
    expect(before.map((d) => d.program)).toEqual(['soffice']);
    expect(new Set(before[0]!.paths)).toEqual(
      new Set([join(bin, 'soffice'), join(bin, 'libreoffice'), realpathSync(join(bin, 'soffice.real'))]),
    );
    expect(before[0]!.script).toContain('soffice (also called libreoffice) is not granted to skill "s"');
    grantPrograms(home, 's', ['soffice']);
    expect(deniedPrograms(home, 's', [], here)).toEqual([]);
  });
});

/**
 * A new home holding one skill whose one script (`scripts/<script>`) runs `lines`, imported, with
 * a native environment seeded and the OS-sandbox runtime accepted.
 */
async function nativeSkill(name: string, description: string, script: string, lines: string[]) {
  const home = tempDir();
  const skill = join(tempDir(), name);
  mkdirSync(join(skill, 'scripts'), { recursive: true });
  writeFileSync(
    join(skill, 'SKILL.md'),
    `---\nname: ${name}\ndescription: ${description}\n---\nRun scripts/${script}.\n`,
  );
  writeFileSync(join(skill, 'scripts', script), lines.join('\n'));
  expect((await runCli(['--home', home, 'skills', 'import', skill])).code).toBe(0);
  seedNativeEnv(home, name, python!);
  acceptNativeRuntime(home, name, ['lxml']);
  return home;
}

describe.skipIf(skipWithout(missing, 'program grants in the OS sandbox'))(
  'program grants in the OS sandbox',
  () => {
    it('an ungranted program is refused by name with the command; granted it runs; revoked, refused again', async () => {
      const home = await nativeSkill('prog-probe', 'Asks a program its version.', 'probe.py', [
        'import subprocess, sys',
        `r = subprocess.run(["${PROGRAM}", "${PROGRAM === 'qpdf' ? '--version' : '-v'}"], capture_output=True, text=True)`,
        'print("status", r.returncode)',
        'print(r.stdout + r.stderr)',
        'sys.exit(r.returncode)',
      ]);
      const run = () => runCli(['--home', home, 'skills', 'run-script', 'prog-probe', 'scripts/probe.py']);

      const refused = await run();
      expect(refused.code).toBe(126);
      expect(refused.stdout).toContain(
        `program not granted: ${PROGRAM} is not granted to skill "prog-probe"; grant it with: skilldesk skills programs grant "prog-probe" ${PROGRAM}`,
      );
      expect(refused.stderr).toContain(
        `skilldesk: the script started a program this skill is not granted: ${PROGRAM}`,
      );

      const granted = await runCli(['--home', home, 'skills', 'programs', 'grant', 'prog-probe', PROGRAM!]);
      expect(granted.code).toBe(0);
      const ran = await run();
      expect(ran.stderr).toBe('');
      expect(ran.code).toBe(0);
      expect(ran.stdout).toMatch(/status 0/);
      expect(ran.stdout).toMatch(PROGRAM === 'qpdf' ? /qpdf version/ : /pdftoppm version/);

      const listed = await runCli(['--home', home, '--json', 'skills', 'programs', 'list', 'prog-probe']);
      expect(JSON.parse(listed.stdout).programs).toMatchObject([
        { program: PROGRAM, granted: true, files: ['scripts/probe.py'] },
      ]);

      expect(
        (await runCli(['--home', home, 'skills', 'programs', 'revoke', 'prog-probe', PROGRAM!])).code,
      ).toBe(0);
      expect((await run()).code).toBe(126);
    }, 180_000);
  },
);

// Debian's /usr/bin/soffice and /usr/bin/libreoffice are two links to one script: a granted soffice
// must run even though libreoffice is not granted (it failed naming libreoffice, so the document
// skills' conversions, thumbnails and accepted changes never ran). CI installs LibreOffice.
const soffice = findProgram('soffice');
const sofficeMissing = missing && missing !== 'neither pdftoppm nor qpdf installed' ? missing : null;
describe.skipIf(
  skipWithout(sofficeMissing ?? (soffice ? null : 'LibreOffice not installed'), 'a granted LibreOffice'),
)('a granted LibreOffice', () => {
  it('converts the user’s file in the OS sandbox under its other name’s cover', async () => {
    const home = await nativeSkill('to-pdf', 'Turns a text file into a PDF.', 'to_pdf.py', [
      'import subprocess, sys',
      'r = subprocess.run(["soffice", "--headless", "--convert-to", "pdf", "--outdir", "out", sys.argv[1]], capture_output=True, text=True, timeout=120)',
      'print(r.stdout + r.stderr)',
      'sys.exit(r.returncode)',
    ]);
    const input = join(tempDir(), 'notes.txt');
    writeFileSync(input, 'Quarterly notes: sales rose 4%.\n');
    expect((await runCli(['--home', home, 'skills', 'programs', 'grant', 'to-pdf', 'soffice'])).code).toBe(0);
    const out = tempDir();
    const ran = await runCli([
      '--home',
      home,
      '--json',
      'skills',
      'run-script',
      'to-pdf',
      'scripts/to_pdf.py',
      'inputs/notes.txt',
      '--file',
      input,
      '--out',
      out,
    ]);
    const result = JSON.parse(ran.stdout) as {
      exit_code: number;
      stdout: string;
      files: Array<{ path: string }>;
    };
    expect(result.stdout).not.toContain('not granted');
    expect(result.exit_code).toBe(0);
    expect(result.files.map((f) => f.path)).toEqual(['out/notes.pdf']);
    expect(
      readFileSync(join(out, 'out', 'notes.pdf'))
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  }, 180_000);
});
