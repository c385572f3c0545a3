// `skilldesk skills run-script`: the script's stdout and stderr as its own, its exit code as the
// command's, --stdin, --out, and the refusals that name what to do.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHost } from '../host.js';
import { minimalPdf, PROJECT_ROOT, runCli, tempDir } from '../test-support/index.js';
import { invokeChannel } from '../transport/dispatch.js';
import { scriptExitCode } from './script-commands.js';

const FIXTURE = join(PROJECT_ROOT, 'electron', 'tools', 'fixtures', 'skill-creator');

describe('skilldesk skills run-script', () => {
  it('passes arguments, stdin and exit codes through and saves written files with --out', async () => {
    const home = tempDir();
    expect((await runCli(['--home', home, 'skills', 'import', FIXTURE])).code).toBe(0);
    const usage = await runCli([
      '--home',
      home,
      'skills',
      'run-script',
      'skill-creator',
      'scripts/aggregate_benchmark.py',
    ]);
    expect(usage.code).toBe(2);
    expect(usage.stdout).toBe('');
    expect(usage.stderr).toMatch(/error: the following arguments are required: benchmark_dir/);

    const out = join(tempDir(), 'results');
    const ran = await runCli([
      '--home',
      home,
      'skills',
      'run-script',
      'skill-creator',
      'scripts/aggregate_benchmark.py',
      'scripts',
      '--out',
      out,
      '--',
      '--skill-name',
      'cli-demo',
      '-o',
      'out/benchmark.json',
    ]);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^No eval directories found[\s\S]*Generated: out\/benchmark.json/);
    expect(JSON.parse(readFileSync(join(out, 'out', 'benchmark.json'), 'utf8')).metadata.skill_name).toBe(
      'cli-demo',
    );
    expect(readFileSync(join(out, 'out', 'benchmark.md'), 'utf8')).toMatch(/cli-demo/);

    const json = await runCli(
      [
        '--home',
        home,
        '--json',
        'skills',
        'run-script',
        'skill-creator',
        'scripts/quick_validate.py',
        '--stdin',
        '-',
      ],
      {},
      'ignored\n',
    );
    expect(json.code).toBe(1);
    const r = JSON.parse(json.stdout);
    expect(r).toMatchObject({
      skill: 'skill-creator',
      script: 'scripts/quick_validate.py',
      exit_code: 1,
      files: [],
    });
    expect(r.stderr).toMatch(/ModuleNotFoundError: No module named 'yaml'/);

    const missing = await runCli([
      '--home',
      home,
      'skills',
      'run-script',
      'skill-creator',
      'scripts/nope.py',
    ]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/no script "scripts\/nope.py"; its scripts: .*aggregate_benchmark.py/);
  }, 120_000);

  it("--file gives the script the user's files read-only under inputs/, and refuses what it cannot", async () => {
    const home = tempDir();
    const skill = join(tempDir(), 'pdf-stat');
    mkdirSync(join(skill, 'scripts'), { recursive: true });
    writeFileSync(
      join(skill, 'SKILL.md'),
      '---\nname: pdf-stat\ndescription: Says how large a PDF is.\n---\nRun scripts/stat.py FILE.\n',
    );
    writeFileSync(
      join(skill, 'scripts', 'stat.py'),
      [
        '# Say how large a PDF is.',
        'import argparse, json, os',
        'p = argparse.ArgumentParser(description="PDF size")',
        'p.add_argument("pdf")',
        'a = p.parse_args()',
        'raw = open(a.pdf, "rb").read()',
        'json.dump({"pdf": raw.startswith(b"%PDF-"), "size": len(raw), "inputs": sorted(os.listdir("inputs"))}, open("out/stat.json", "w"))',
        'print("ok")',
      ].join('\n'),
    );
    expect((await runCli(['--home', home, 'skills', 'import', skill])).code).toBe(0);
    const dir = tempDir();
    const pdf = join(dir, 'form.pdf');
    writeFileSync(pdf, minimalPdf());
    writeFileSync(join(dir, 'notes.txt'), 'n');
    const out = join(tempDir(), 'o');
    const ran = await runCli([
      '--home',
      home,
      'skills',
      'run-script',
      'pdf-stat',
      'scripts/stat.py',
      'inputs/form.pdf',
      '--file',
      pdf,
      '--file',
      join(dir, 'notes.txt'),
      '--out',
      out,
    ]);
    expect(ran.stderr).toMatch(/wrote .*stat\.json/);
    expect(ran.code).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'out', 'stat.json'), 'utf8'))).toEqual({
      pdf: true,
      size: minimalPdf().length,
      inputs: ['form.pdf', 'notes.txt'],
    });

    // Options after SCRIPT are the script's: --help is its usage, not this command's.
    const help = await runCli([
      '--home',
      home,
      'skills',
      'run-script',
      'pdf-stat',
      'scripts/stat.py',
      '--help',
    ]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/usage: stat\.py \[-h\] pdf/);

    const run = (...extra: string[]) =>
      runCli(['--home', home, 'skills', 'run-script', 'pdf-stat', 'scripts/stat.py', 'x', ...extra]);
    const missing = await run('--file', join(dir, 'nope.pdf'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--file .*nope\.pdf: no such file/);
    mkdirSync(join(dir, 'other'));
    writeFileSync(join(dir, 'other', 'form.pdf'), 'x');
    const twice = await run('--file', pdf, '--file', join(dir, 'other', 'form.pdf'));
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/both named form\.pdf/);

    // The channel: a name that leaves inputs/ is refused, and paths only from the app's own process.
    const host = createHost({ home, mode: 'cli', env: {} });
    try {
      const req = { name: 'pdf-stat', script: 'scripts/stat.py', args: ['x'] };
      for (const name of ['../escape.pdf', 'a/b.pdf', '..']) {
        const r = await invokeChannel(
          host.handlers,
          'scripts/run',
          { ...req, files: [{ name, path: pdf }] },
          { transport: 'in-process' },
          host.logger,
        );
        expect(r).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
      }
      const remote = await invokeChannel(
        host.handlers,
        'scripts/run',
        { ...req, files: [{ name: 'form.pdf', path: pdf }] },
        { transport: 'ws' },
        host.logger,
      );
      expect(remote).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    } finally {
      await host.dispose();
    }
  }, 180_000);

  it('maps the sandbox stopping a script to 124 (time limit) or 125, and exit codes to 0-255', () => {
    expect(scriptExitCode({ exit_code: -1, sandbox_error: { code: 'SANDBOX_TIMEOUT', message: '' } })).toBe(
      124,
    );
    expect(scriptExitCode({ exit_code: -1, sandbox_error: { code: 'SANDBOX_LIMIT', message: '' } })).toBe(
      125,
    );
    expect(scriptExitCode({ exit_code: 3 })).toBe(3);
    expect(scriptExitCode({ exit_code: 256 + 7 })).toBe(7);
    expect(scriptExitCode({ exit_code: -1 })).toBe(255);
  });
});
