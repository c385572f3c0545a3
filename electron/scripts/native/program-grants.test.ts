// External programs in the OS sandbox are the user's to grant per skill: not granted, the script's
// call fails naming the program and the command; granted, the real program runs; revoked, refused
// again. With the real sandbox and a program installed here (pdftoppm, else qpdf).
import { mkdirSync, writeFileSync } from 'node:fs';
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
});

describe.skipIf(skipWithout(missing, 'program grants in the OS sandbox'))(
  'program grants in the OS sandbox',
  () => {
    it('an ungranted program is refused by name with the command; granted it runs; revoked, refused again', async () => {
      const home = tempDir();
      const skill = join(tempDir(), 'prog-probe');
      mkdirSync(join(skill, 'scripts'), { recursive: true });
      writeFileSync(
        join(skill, 'SKILL.md'),
        '---\nname: prog-probe\ndescription: Asks a program its version.\n---\nRun scripts/probe.py.\n',
      );
      writeFileSync(
        join(skill, 'scripts', 'probe.py'),
        [
          'import subprocess, sys',
          `r = subprocess.run(["${PROGRAM}", "${PROGRAM === 'qpdf' ? '--version' : '-v'}"], capture_output=True, text=True)`,
          'print("status", r.returncode)',
          'print(r.stdout + r.stderr)',
          'sys.exit(r.returncode)',
        ].join('\n'),
      );
      expect((await runCli(['--home', home, 'skills', 'import', skill])).code).toBe(0);
      seedNativeEnv(home, 'prog-probe', python!);
      acceptNativeRuntime(home, 'prog-probe', ['lxml']);
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
