// Packages for skills' scripts: requirements.txt parsed strictly, pure-Python wheels fetched from
// PyPI with the real pip into a temporary account's wheelhouse (pinned by SHA-256), mounted
// read-only for the skill's runs; pypdf and openpyxl create and read back a PDF and a workbook.
// Needs pip and PyPI (CI reaches PyPI; offline this suite skips locally and fails in CI).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Result } from '../contract/channels.js';
import { createHost, type Host } from '../host.js';
import { quietLogger, runCli, skipWithout, tempDir } from '../test-support/index.js';
import { invokeChannel } from '../transport/dispatch.js';
import { pipFailure, skillPackages, wheelTags } from './packages.js';
import { parseRequirements } from './requirements.js';

describe('wheels and pip’s refusals', () => {
  it('names the dependency without a pure-Python wheel, and what needs it, from pip’s own words', () => {
    // Excerpts of pip 23's real output for `mcp` and `anthropic>=0.40` (wheels only, any platform).
    const mcp = `ERROR: Cannot install mcp because these package versions have conflicting dependencies.

The conflict is caused by:
    pydantic 2.14.4 depends on pydantic-core==2.50.5
    pydantic 2.14.3 depends on pydantic-core==2.50.4
    pydantic 2.0 depends on pydantic-core==2.0.1

To fix this you could try to:
1. loosen the range of package versions you've specified

ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/
`;
    const e = pipFailure('agent', parseRequirements('mcp\n'), mcp);
    expect(e.message).toMatch(
      /^mcp → pydantic needs "pydantic-core", which has compiled \(C\/Rust\) code and no pure-Python wheel/,
    );
    expect(e.details).toMatchObject({ package: 'pydantic-core', required_by: 'mcp → pydantic' });
    const anthropic = `ERROR: Cannot install anthropic==0.100.0, anthropic==0.40.0 and anthropic==2.9.0 because these package versions have conflicting dependencies.

The conflict is caused by:
    anthropic 2.14.0 depends on jiter<1 and >=0.4.0
    anthropic 2.13.0 depends on jiter<1 and >=0.4.0
`;
    expect(pipFailure('agent', parseRequirements('anthropic>=0.40\n'), anthropic).message).toMatch(
      /^anthropic needs "jiter", which has compiled/,
    );
    expect(
      pipFailure(
        'x',
        parseRequirements('pypdf\n'),
        'ERROR: Could not find a version that satisfies the requirement pypdf (from versions: none)\n  Retrying after connection broken by NewConnectionError',
      ).message,
    ).toMatch(/could not reach the package index https:\/\/pypi\.org\/simple\//);
  });

  it('tells pure wheels from compiled ones', () => {
    expect(wheelTags('openpyxl-3.1.5-py2.py3-none-any.whl')).toEqual({
      name: 'openpyxl',
      version: '3.1.5',
      pure: true,
    });
    expect(wheelTags('numpy-2.4.6-cp314-cp314-manylinux_2_28_x86_64.whl')?.pure).toBe(false);
    expect(wheelTags('not-a-wheel.zip')).toBeNull();
  });
});

const pip = spawnSync(process.env.SKILLDESK_PYTHON || 'python3', ['-m', 'pip', '--version'], {
  encoding: 'utf8',
});
const missing = pip.status === 0 ? null : 'python3 -m pip is not available';

const SCRIPT = `"""Make a PDF and a workbook, then read both back."""
import sys
from openpyxl import Workbook, load_workbook
from pypdf import PdfReader, PdfWriter

title = sys.argv[1]
w = PdfWriter()
w.add_blank_page(width=200, height=100)
w.add_metadata({"/Title": title})
w.write("out/report.pdf")
wb = Workbook()
wb.active["A1"] = title
wb.active["B1"] = 42
wb.save("out/report.xlsx")

pdf = PdfReader("out/report.pdf")
sheet = load_workbook("out/report.xlsx").active
print(len(pdf.pages), pdf.metadata.title, sheet["A1"].value, sheet["B1"].value)
`;

function skillFiles(name: string, requirements: string) {
  const files: Record<string, string> = {
    [`${name}/SKILL.md`]: `---\nname: ${name}\ndescription: Makes reports with pypdf and openpyxl.\n---\nRun scripts/report.py TITLE.\n`,
    [`${name}/scripts/report.py`]: SCRIPT,
    [`${name}/scripts/requirements.txt`]: requirements,
  };
  return Object.entries(files).map(([path, text]) => ({
    path,
    data_base64: Buffer.from(text).toString('base64'),
  }));
}

describe.skipIf(skipWithout(missing, 'script packages from PyPI'))('script packages from PyPI', () => {
  const home = tempDir();
  const host: Host = createHost({ home, env: {}, mode: 'test', logger: quietLogger });
  afterAll(() => host.dispose());
  const call = async <T>(channel: string, req: unknown) =>
    (await invokeChannel(host.handlers, channel, req, { transport: 'in-process' }, quietLogger)) as Result<T>;
  const ok = async <T = Record<string, unknown>>(channel: string, req: unknown): Promise<T> => {
    const r = await call<T>(channel, req);
    if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
    return r.value;
  };

  it('pypdf and openpyxl: installed once, pinned, mounted for the skill’s runs', async () => {
    await ok('skills/import-files', { files: skillFiles('reports', 'pypdf\nopenpyxl\n'), scope: 'account' });
    // Before the install the script cannot import them, and the result says what to do.
    const before = await ok<{ exit_code: number; stderr: string; hint?: string }>('scripts/run', {
      name: 'reports',
      script: 'scripts/report.py',
      args: ['Q3'],
    });
    expect(before.exit_code).toBe(1);
    expect(before.stderr).toMatch(/ModuleNotFoundError: No module named 'openpyxl'/);
    expect(before.hint).toMatch(/skilldesk skills packages install "reports"/);

    const installed = await ok<{
      wheels: Array<{ name: string; filename: string; sha256: string }>;
      already_installed: boolean;
    }>('scripts/install-packages', { name: 'reports' });
    expect(installed.already_installed).toBe(false);
    expect(installed.wheels.map((w) => w.name).sort()).toEqual(['et-xmlfile', 'openpyxl', 'pypdf']);
    for (const w of installed.wheels) {
      expect(w.filename).toMatch(/-none-any\.whl$/);
      expect(w.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    const lock = JSON.parse(readFileSync(join(home, 'packages', 'packages.json'), 'utf8'));
    expect(lock.skills.reports.requirements).toEqual(['pypdf', 'openpyxl']);

    const ran = await ok<{
      exit_code: number;
      stdout: string;
      stderr: string;
      files: Array<{ path: string; media_type: string; size: number }>;
    }>('scripts/run', {
      name: 'reports',
      script: 'scripts/report.py',
      args: ['Q3 report'],
      timeout_ms: 60_000,
    });
    expect(ran.stderr).toBe('');
    expect(ran).toMatchObject({ exit_code: 0, stdout: '1 Q3 report Q3 report 42\n' });
    expect(ran.files.map((f) => [f.path, f.media_type])).toEqual([
      ['out/report.pdf', 'application/pdf'],
      ['out/report.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    ]);

    // A second install changes nothing; a wheel changed on disk is no longer mounted.
    expect(await ok('scripts/install-packages', { name: 'reports' })).toMatchObject({
      already_installed: true,
    });
    const skill = (await ok<{ skill: unknown }>('skills/get', { name: 'reports' })).skill;
    const pypdf = installed.wheels.find((w) => w.name === 'pypdf')!;
    writeFileSync(join(home, 'packages', 'wheels', pypdf.filename), 'tampered');
    const pkgs = skillPackages(home, skill as Parameters<typeof skillPackages>[1]);
    expect(pkgs.wheels.map((w) => w.filename)).not.toContain(pypdf.filename);
    expect(pkgs.missing).toEqual([`${pypdf.filename} (changed on disk)`]);
  }, 180_000);

  it('skills import --install-packages installs what the folder declares; a refused package leaves the import and exits 1', async () => {
    const cliHome = tempDir();
    const dir = tempDir();
    for (const f of [...skillFiles('xlsx-maker', 'openpyxl\n'), ...skillFiles('loop-maker', 'uvloop\n')]) {
      mkdirSync(join(dir, dirname(f.path)), { recursive: true });
      writeFileSync(join(dir, f.path), Buffer.from(f.data_base64, 'base64'));
    }
    const r = await runCli(['--home', cliHome, '--json', 'skills', 'import', '--install-packages', dir]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.imported.map((i: { name: string }) => i.name).sort()).toEqual(['loop-maker', 'xlsx-maker']);
    expect(out.packages).toEqual([
      { skill: 'loop-maker', ok: false, error: expect.stringMatching(/"uvloop" has compiled/) },
      {
        skill: 'xlsx-maker',
        ok: true,
        wheels: [
          { filename: expect.stringMatching(/^et_xmlfile-.*-none-any\.whl$/), sha256: expect.any(String) },
          { filename: expect.stringMatching(/^openpyxl-.*-none-any\.whl$/), sha256: expect.any(String) },
        ],
      },
    ]);
    expect(r.stderr).toMatch(/loop-maker: imported, but its packages were not installed/);
  }, 180_000);

  it('a dependency with compiled code is named with the package that needs it', async () => {
    await ok('skills/import-files', { files: skillFiles('models', 'pydantic>=2.12\n'), scope: 'account' });
    const r = await call('scripts/install-packages', { name: 'models' });
    expect(!r.ok && r.error.message).toMatch(/^pydantic needs "pydantic-core", which has compiled/);
    expect(!r.ok && r.error.message).not.toMatch(/ResolutionImpossible/);
  }, 240_000);

  it('a package with compiled code is refused naming it, whether or not Pyodide builds it', async () => {
    await ok('skills/import-files', { files: skillFiles('fast-loop', 'uvloop\n'), scope: 'account' });
    const uv = await call('scripts/install-packages', { name: 'fast-loop' });
    expect(uv).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(!uv.ok && uv.error.message).toMatch(/"uvloop" has compiled .* Pyodide has no build of it/);
    await ok('skills/import-files', { files: skillFiles('arrays', 'numpy\n'), scope: 'account' });
    const np = await call('scripts/install-packages', { name: 'arrays' });
    expect(!np.ok && np.error.message).toMatch(/"numpy" has compiled .*Pyodide builds it \(numpy [\d.]+\)/);
    expect(readFileSync(join(home, 'packages', 'packages.json'), 'utf8')).not.toMatch(/fast-loop|arrays/);
  }, 120_000);
});
