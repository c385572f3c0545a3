// `skilldesk chat --python pyodide|full` with run_python: a CSV given with --attach is in the run's
// folder; without a terminal the run is denied unless --yes; --python full says Full Python is not
// available in this build (the model is told, and the turn goes on).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startLoopbackProvider } from '../llm/index.js';
import { runCli, tempDir } from '../test-support/index.js';

const CODE =
  'import csv, statistics\nrows = list(csv.DictReader(open("data.csv")))\nprint("total", sum(int(r["n"]) for r in rows), "mean", statistics.mean(int(r["n"]) for r in rows))';

describe('skilldesk chat --python', () => {
  it('runs run_python with --yes on an attached file, denies it without, and refuses full here', async () => {
    const provider = await startLoopbackProvider({
      script: {
        turns: [
          { tool_calls: [{ name: 'run_python', arguments: { code: CODE } }] },
          { text: 'It was denied.', expect: { tool_result_contains: 'user denied' } },
          { tool_calls: [{ name: 'run_python', arguments: { code: CODE } }] },
          { text: 'Total is 10.', expect: { tool_result_contains: 'total 10 mean 2.5' } },
          { tool_calls: [{ name: 'run_python', arguments: { code: 'print(1)' } }] },
          { text: 'No full Python.', expect: { tool_result_contains: 'Full Python is not available yet' } },
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
    const full = await runCli(
      ['--home', home, 'chat', 'use numpy', '--yes', '--python', 'full', ...llm],
      env,
    );
    expect(full.code, full.stderr).toBe(0);
    expect(full.stdout).toContain('No full Python.');
    expect(full.stderr).toContain('✗ run_python');
    const bad = await runCli(['--home', home, 'chat', 'x', '--python', 'cpython', ...llm], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--python.*cpython.*pyodide, full/s);
  }, 120_000);
});
