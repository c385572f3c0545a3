// `skilldesk chat --python pyodide|full` with run_python: a CSV given with --attach is in the run's
// folder; without a terminal the run is denied unless --yes; --python full runs CPython in the OS
// sandbox (a one-package part of the lock, from the shared wheel cache), or says why it cannot.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { TEST_WHEEL_CACHE } from '../chat/full-python.test-support.js';
import { startLoopbackProvider } from '../llm/index.js';
import { nativeSandboxSupport } from '../scripts/index.js';
import { runCli, tempDir } from '../test-support/index.js';

const CODE =
  'import csv, statistics\nrows = list(csv.DictReader(open("data.csv")))\nprint("total", sum(int(r["n"]) for r in rows), "mean", statistics.mean(int(r["n"]) for r in rows))';

describe('skilldesk chat --python', () => {
  it('runs run_python with --yes on an attached file, denies it without, and runs full in the OS sandbox', async () => {
    const provider = await startLoopbackProvider({
      script: {
        turns: [
          { tool_calls: [{ name: 'run_python', arguments: { code: CODE } }] },
          { text: 'It was denied.', expect: { tool_result_contains: 'user denied' } },
          { tool_calls: [{ name: 'run_python', arguments: { code: CODE } }] },
          { text: 'Total is 10.', expect: { tool_result_contains: 'total 10 mean 2.5' } },
          {
            tool_calls: [
              {
                name: 'run_python',
                arguments: { code: 'import sys, cycler\nprint(sys.implementation.name, cycler.__name__)' },
              },
            ],
          },
          nativeSandboxSupport().ok
            ? { text: 'Full Python ran.', expect: { tool_result_contains: 'cpython cycler' } }
            : {
                text: 'Full Python ran.',
                expect: { tool_result_contains: 'runs only inside the OS sandbox' },
              },
        ],
      },
    });
    onTestFinished(() => provider.close());
    const home = tempDir();
    const csv = join(home, 'data.csv');
    writeFileSync(csv, 'n\n1\n2\n3\n4\n');
    const llm = ['--provider', 'openai', '--model', 'gpt-4.1-mini', '--base-url', provider.url];
    const env = { OPENAI_API_KEY: 'x' };
    const denied = await runCli(['--home', home, 'chat', 'sum it', '--attach', csv, ...llm], env);
    expect(denied.code, denied.stderr).toBe(0);
    expect(denied.stderr).toContain('denied run_python: no terminal to ask on; run with --yes');
    expect(denied.stdout).toContain('It was denied.');
    const allowed = await runCli(
      ['--home', home, 'chat', 'sum it', '--attach', csv, '--yes', '--python', 'pyodide', ...llm],
      env,
    );
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain('Total is 10.');
    expect(allowed.stderr).toContain('✓ run_python');
    const full = await runCli(['--home', home, 'chat', 'use cycler', '--yes', '--python', 'full', ...llm], {
      ...env,
      SKILLDESK_WHEEL_CACHE: TEST_WHEEL_CACHE,
      SKILLDESK_FULL_PYTHON_PACKAGES: 'cycler',
    });
    expect(full.code, full.stderr).toBe(0);
    expect(full.stdout).toContain('Full Python ran.');
    const bad = await runCli(['--home', home, 'chat', 'x', '--python', 'cpython', ...llm], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--python.*cpython.*pyodide, full/s);
  }, 300_000);
});
