import { describe, expect, it } from 'vitest';
import { NO_VENV } from '../sidecar-client/test-lm.js';
import { runCli, skipWithout, tempDir } from '../test-support/index.js';

const noSidecar = skipWithout(NO_VENV, 'skilldesk sidecar');

describe('skilldesk sidecar', () => {
  it.skipIf(noSidecar)('status reports the running sidecar', async () => {
    const r = await runCli(['--json', '--home', tempDir(), 'sidecar', 'status']);
    expect(r.code, r.stderr).toBe(0);
    const out = r.json();
    expect(out.available).toBe(true);
    expect(out.version.dspy).toMatch(/^3\./);
  });

  it.skipIf(noSidecar)('manifest lists the templates', async () => {
    const r = await runCli(['--home', tempDir(), 'sidecar', 'manifest']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('chain_of_thought');
  });
});
