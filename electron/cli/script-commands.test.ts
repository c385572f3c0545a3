// `skilldesk skills run-script`: the script's stdout and stderr as its own, its exit code as the
// command's, --stdin, --out, and the refusals that name what to do.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli, tempDir } from '../test-support/index.js';
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
