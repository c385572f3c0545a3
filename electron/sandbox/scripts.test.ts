import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxPool } from './pool.js';
import { runSkillScript, type ScriptFile } from './scripts.js';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const file = (path: string, text: string): ScriptFile => ({ path, bytes: enc(text) });

let pool: SandboxPool;
beforeAll(async () => {
  pool = new SandboxPool({ cacheDir: join(tmpdir(), 'skilldesk-test-sandbox-cache') });
  await pool.warmup();
});
afterAll(async () => {
  await pool?.close();
});

describe('runSkillScript', () => {
  it('runs a script as python would: argv, stdin, __main__, cwd, env, helper modules beside it', async () => {
    const r = await runSkillScript({
      pool,
      files: [
        file(
          'scripts/show.py',
          [
            'import os, sys, json',
            'from helper import twice',
            'data = sys.stdin.read()',
            'print(json.dumps({"argv": sys.argv, "name": __name__, "cwd": os.getcwd(), "env": dict(os.environ), "stdin": data, "twice": twice(21)}))',
            'print("to stderr", file=sys.stderr)',
          ].join('\n'),
        ),
        file('scripts/helper.py', 'def twice(x):\n    return 2 * x\n'),
        file('references/notes.md', '# notes\n'),
      ],
      script: 'scripts/show.py',
      argv: ['--flag', 'a b', "it's"],
      stdin: 'hello\nworld',
      env: { ONLY: 'this' },
    });
    expect(r.exit_code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      argv: ['scripts/show.py', '--flag', 'a b', "it's"],
      name: '__main__',
      cwd: '/skill',
      env: { ONLY: 'this' },
      stdin: 'hello\nworld',
      twice: 42,
    });
    expect(r.stderr).toBe('to stderr\n');
    expect(r.files).toEqual([]);
  });

  it('gives back the files the script wrote; the skill files stay read-only', async () => {
    const r = await runSkillScript({
      pool,
      files: [
        file(
          'scripts/write.py',
          [
            'import sys',
            'open("out/report.csv", "w").write("a,b\\n1,2\\n")',
            'open("summary.txt", "wb").write(bytes(range(256)))',
            'try:',
            '    open("scripts/write.py", "w").write("changed")',
            '    print("wrote the script")',
            'except OSError as e:',
            '    print("refused", type(e).__name__)',
          ].join('\n'),
        ),
      ],
      script: 'scripts/write.py',
    });
    expect(r.stdout).toBe('refused PermissionError\n');
    expect(r.exit_code).toBe(0);
    expect(r.files.map((f) => [f.path, f.media_type])).toEqual([
      ['out/report.csv', 'text/csv'],
      ['summary.txt', 'text/plain'],
    ]);
    expect(dec(r.files[0]!.bytes)).toBe('a,b\n1,2\n');
    expect([...r.files[1]!.bytes]).toEqual([...Array(256).keys()]);
  });

  it('SystemExit(n) is exit code n and an exception exit code 1 with its traceback; neither is a sandbox failure', async () => {
    const exit2 = await runSkillScript({
      pool,
      files: [file('s.py', 'import sys\nprint("usage: s.py FILE", file=sys.stderr)\nsys.exit(2)\n')],
      script: 's.py',
    });
    expect(exit2).toMatchObject({ exit_code: 2, stderr: 'usage: s.py FILE\n' });
    expect(exit2.sandbox_error).toBeUndefined();
    const boom = await runSkillScript({
      pool,
      files: [file('s.py', 'def f():\n    raise ValueError("bad input")\nf()\n')],
      script: 's.py',
    });
    expect(boom.exit_code).toBe(1);
    expect(boom.stderr).toMatch(/Traceback[\s\S]*File "\/skill\/s\.py", line 3[\s\S]*ValueError: bad input/);
    expect(boom.stderr).not.toMatch(/_skilldesk_script/);
    const msg = await runSkillScript({
      pool,
      files: [file('s.py', 'raise SystemExit("no input given")')],
      script: 's.py',
    });
    expect(msg).toMatchObject({ exit_code: 1, stderr: 'no input given\n' });
  });

  it('a run leaves nothing for the next one', async () => {
    const a = await runSkillScript({
      pool,
      files: [
        file(
          'a.py',
          'import os\nos.environ["LEAK"]="1"\nopen("/tmp/leak","w").write("x")\nimport sys\nsys.modules["leaky"]=sys\n',
        ),
      ],
      script: 'a.py',
      env: { SECRET: 'only-for-a' },
    });
    expect(a.exit_code).toBe(0);
    const b = await runSkillScript({
      pool,
      files: [
        file(
          'b.py',
          'import os, sys\nprint(dict(os.environ), os.path.exists("/tmp/leak"), "leaky" in sys.modules, os.path.exists("/skill/a.py"))\n',
        ),
      ],
      script: 'b.py',
    });
    expect(b.stdout).toBe('{} False False False\n');
  });

  it('a script cannot forge the report through submit()', async () => {
    const r = await runSkillScript({
      pool,
      files: [
        file(
          's.py',
          'import skilldesk\ntry:\n    skilldesk.submit({"exit_code": 0, "files": [], "dropped": []})\nexcept Exception as e:\n    print(type(e).__name__)\nraise SystemExit(3)\n',
        ),
      ],
      script: 's.py',
    });
    expect(r).toMatchObject({ exit_code: 3, stdout: 'SkillDeskError\n' });
  });

  it('a time limit is a sandbox error with exit code -1', async () => {
    const r = await runSkillScript({
      pool,
      files: [file('s.py', 'while True:\n    pass\n')],
      script: 's.py',
      timeoutMs: 300,
    });
    expect(r.exit_code).toBe(-1);
    expect(r.sandbox_error?.code).toBe('SANDBOX_TIMEOUT');
  });

  it('refuses a missing script naming the ones there are, and paths outside the skill', async () => {
    await expect(
      runSkillScript({ pool, files: [file('scripts/a.py', '')], script: 'scripts/b.py' }),
    ).rejects.toThrow(/no script "scripts\/b.py"; its scripts: scripts\/a.py/);
    await expect(runSkillScript({ pool, files: [file('../a.py', '')], script: '../a.py' })).rejects.toThrow(
      /must be a relative path inside the skill/,
    );
  });
});
