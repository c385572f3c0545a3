import { describe, expect, it } from 'vitest';
import { scriptRuntime } from './permissions.js';

describe('scriptRuntime', () => {
  it('says nothing for a skill without scripts', () => {
    expect(scriptRuntime({ scripts: [], packages: [] })).toBeNull();
  });
  it('places Python in Pyodide and names the OS-sandbox runtime a compiled package would need', () => {
    expect(scriptRuntime({ scripts: ['scripts/rates.py'], packages: [] })).toBe(
      'Python in the Pyodide sandbox (no network)',
    );
    expect(scriptRuntime({ scripts: ['Count', 'scripts/rates.py'], packages: ['httpx'] })).toBe(
      'Python in the Pyodide sandbox (no network); a package with compiled code needs the OS-sandbox runtime, asked for separately',
    );
  });
  it('says scripts in other languages are not run', () => {
    expect(scriptRuntime({ scripts: ['scripts/setup.sh'], packages: [] })).toBe(
      'scripts/setup.sh not run (Python only)',
    );
  });
});
