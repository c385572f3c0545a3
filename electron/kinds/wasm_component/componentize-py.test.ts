import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SKILL_WIT } from '../../sandbox/index.js';
import { tempDir } from '../../test-support/index.js';
import { wasmComponentKind } from './index.js';

// componentize-py is not a dependency of the app (it comes from PyPI): this runs where it is
// installed, on PATH or named by COMPONENTIZE_PY.
const bin = process.env.COMPONENTIZE_PY || 'componentize-py';
const available = spawnSync(bin, ['--version'], { stdio: 'ignore' }).status === 0;

describe.skipIf(!available)('a Python component built with componentize-py', () => {
  it('is refused at import, naming the WASI imports CPython brings (sockets and filesystem among them)', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'skill.wit'), SKILL_WIT);
    writeFileSync(
      join(dir, 'app.py'),
      [
        'import json',
        'import wit_world',
        'from wit_world.imports import host',
        '',
        'class WitWorld(wit_world.WitWorld):',
        '    def run(self, input: str) -> str:',
        '        host.log("python here")',
        '        v = json.loads(input)',
        '        return json.dumps({"sum": v["a"] + v["b"]})',
        '',
      ].join('\n'),
    );
    const built = spawnSync(
      bin,
      ['-d', 'skill.wit', '-w', 'skill', 'componentize', 'app', '-o', 'app.wasm'],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    );
    expect(built.status, built.stderr).toBe(0);
    const bytes = readFileSync(join(dir, 'app.wasm'));
    const issues = wasmComponentKind.validate(
      {
        kind: 'wasm_component',
        name: 'app.wasm',
        content: bytes.toString('base64'),
        metadata: { encoding: 'base64' },
      },
      { artifacts: [] },
    );
    expect(issues).toHaveLength(1);
    expect(issues[0]!.message).toMatch(/wasi:sockets\/tcp@[\d.]+/);
    expect(issues[0]!.message).toMatch(/wasi:filesystem\/preopens@[\d.]+/);
    expect(issues[0]!.message).toMatch(/wasi:cli\/environment@[\d.]+/);
  }, 300_000);
});
