import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/index.js';
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

  it('a clean script run is served by the warm worker again, and nothing it left reaches the next', async () => {
    const before = pool.stats().workerResets;
    const a = await runSkillScript({
      pool,
      files: [
        file(
          'scripts/a.py',
          [
            'import os, argparse, json',
            'os.environ["LEAK"] = "1"',
            'argparse.LEAK = 1',
            'json.dumps = None',
            'open("/tmp/leak", "w").write("x")',
            'os.makedirs("notes/deep", exist_ok=True)',
            'open("notes/deep/n.txt", "w").write("n")',
            'open("out/result.txt", "w").write("r")',
            'os.chdir("/tmp")',
          ].join('\n'),
        ),
      ],
      script: 'scripts/a.py',
    });
    expect(a.exit_code).toBe(0);
    expect(a.files.map((f) => f.path)).toEqual(['notes/deep/n.txt', 'out/result.txt']);
    const b = await runSkillScript({
      pool,
      files: [
        file(
          'b.py',
          'import os, sys, argparse, json\nprint(sorted(os.listdir("/tmp")), sorted(os.listdir(".")), hasattr(argparse, "LEAK"), json.dumps([1]), "LEAK" in os.environ, os.getcwd())\n',
        ),
      ],
      script: 'b.py',
    });
    expect(b.stdout).toBe("[] ['b.py', 'out'] False [1] False /skill\n");
    // Neither run needed a new worker: the first was restored after it.
    expect(pool.stats().workerResets).toBeGreaterThan(before);
  });

  it('reads a binary input under inputs/ (a PNG made here) and writes an output from it', async () => {
    const dir = tempDir();
    const png = tinyPng();
    const path = join(dir, 'pixel.png');
    writeFileSync(path, png);
    const r = await runSkillScript({
      pool,
      files: [
        file(
          'scripts/png.py',
          [
            'import sys, struct, zlib, json',
            'raw = open(sys.argv[1], "rb").read()',
            'assert raw[:8] == b"\\x89PNG\\r\\n\\x1a\\n"',
            'w, h = struct.unpack(">II", raw[16:24])',
            'json.dump({"width": w, "height": h, "size": len(raw)}, open("out/info.json", "w"))',
            'try:',
            '    open(sys.argv[1], "ab")',
            'except PermissionError:',
            '    print("read-only")',
          ].join('\n'),
        ),
      ],
      inputs: [{ name: 'pixel.png', path }],
      script: 'scripts/png.py',
      argv: ['inputs/pixel.png'],
    });
    expect(r.stderr).toBe('');
    expect(r).toMatchObject({ exit_code: 0, stdout: 'read-only\n' });
    // The input itself is not an output: only what the script wrote comes back.
    expect(r.files.map((f) => f.path)).toEqual(['out/info.json']);
    expect(JSON.parse(dec(r.files[0]!.bytes))).toEqual({ width: 1, height: 1, size: png.length });
  });

  it('takes a 100 MB input without base64 in the program, and the script reads it by length', async () => {
    const dir = tempDir();
    const path = join(dir, 'big.bin');
    // Sparse: 100 MiB of zeros with a marker at the end.
    const fd = openSync(path, 'w');
    writeSync(fd, Buffer.from('END!'), 0, 4, 100 * 1024 * 1024 - 4);
    closeSync(fd);
    const r = await runSkillScript({
      pool,
      files: [
        file(
          'scripts/size.py',
          [
            'import os, sys',
            'n = 0',
            'with open(sys.argv[1], "rb") as f:',
            '    while True:',
            '        chunk = f.read(1 << 20)',
            '        if not chunk:',
            '            break',
            '        n += len(chunk)',
            '        last = chunk',
            'print(n, os.path.getsize(sys.argv[1]), last[-4:].decode())',
          ].join('\n'),
        ),
      ],
      inputs: [{ name: 'big.bin', path }],
      script: 'scripts/size.py',
      argv: ['inputs/big.bin'],
      timeoutMs: 120_000,
    });
    expect(r.stderr).toBe('');
    expect(r).toMatchObject({
      exit_code: 0,
      stdout: `${100 * 1024 * 1024} ${100 * 1024 * 1024} END!\n`,
      files: [],
    });
  }, 300_000);

  it('refuses input names that are not plain file names, twice the same name, and a missing file', async () => {
    const dir = tempDir();
    const path = join(dir, 'a.txt');
    writeFileSync(path, 'a');
    const base = { pool, files: [file('s.py', 'print(1)')], script: 's.py' };
    for (const name of ['../escape.txt', 'a/b.txt', '..', '.', '', 'x\0y', '..\\up.txt']) {
      await expect(runSkillScript({ ...base, inputs: [{ name, path }] })).rejects.toMatchObject({
        code: 'INVALID_INPUT',
      });
    }
    await expect(
      runSkillScript({
        ...base,
        inputs: [
          { name: 'a.txt', path },
          { name: 'a.txt', path },
        ],
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('two inputs are named'),
    });
    await expect(
      runSkillScript({ ...base, inputs: [{ name: 'gone.txt', path: join(dir, 'gone.txt') }] }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('gone.txt') });
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

/** A real 1×1 PNG (signature, IHDR, IDAT, IEND with their CRCs). */
function tinyPng(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.from([0, 255, 0, 0]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
