// `skilldesk skills run-script`: the script's stdout and stderr as its own, its exit code as the
// command's, --stdin, --out, and the refusals that name what to do.
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHost } from '../host.js';
import { MAX_SCRIPT_INPUT_BYTES } from '../sandbox/index.js';
import { acceptNativeRuntime, nativeSandboxSupport } from '../scripts/index.js';
import { minimalPdf, PROJECT_ROOT, runCli, skipWithout, tempDir } from '../test-support/index.js';
import { nativePythonOrNull, seedNativeEnv } from '../test-support/native-env.js';
import { invokeChannel } from '../transport/dispatch.js';
import { scriptExitCode } from './script-commands.js';

const FIXTURE = join(PROJECT_ROOT, 'electron', 'tools', 'fixtures', 'skill-creator');

/** Lists every input file it can read (with its text) and which it could write to. */
const TREE_SCRIPT = [
  'import json, os',
  'files, written = {}, []',
  'for d, _, names in os.walk("inputs"):',
  '    for n in names:',
  '        p = os.path.join(d, n)',
  '        try:',
  '            files[p] = open(p).read()',
  '        except OSError:',
  '            continue',
  '        try:',
  '            open(p, "a").write("x")',
  '            written.append(p)',
  '        except OSError:',
  '            pass',
  'print(json.dumps({"files": files, "written": written}))',
].join('\n');

/** A folder `data` with a hidden file, a subfolder and links in and out, beside `note.txt`. */
function folderFixture() {
  const root = tempDir();
  const data = join(root, 'data');
  mkdirSync(join(data, 'sub'), { recursive: true });
  writeFileSync(join(data, 'a.csv'), 'x,y\n');
  writeFileSync(join(data, '.hidden'), 'h');
  writeFileSync(join(data, 'sub', 'b.txt'), 'bb');
  writeFileSync(join(root, 'note.txt'), 'n');
  writeFileSync(join(root, 'secret.txt'), 'outside');
  symlinkSync(join(root, 'secret.txt'), join(data, 'out-abs'));
  symlinkSync('../secret.txt', join(data, 'out-rel'));
  symlinkSync('sub/b.txt', join(data, 'in-link'));
  return { root, data };
}

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

  it('--folder gives the script a folder read-only under inputs/<name>/ with its tree, and refuses what it cannot', async () => {
    const home = tempDir();
    const skill = join(tempDir(), 'tree-list');
    mkdirSync(join(skill, 'scripts'), { recursive: true });
    writeFileSync(
      join(skill, 'SKILL.md'),
      '---\nname: tree-list\ndescription: Lists the files it is given.\n---\nRun scripts/tree.py.\n',
    );
    writeFileSync(join(skill, 'scripts', 'tree.py'), TREE_SCRIPT);
    expect((await runCli(['--home', home, 'skills', 'import', skill])).code).toBe(0);
    const { root, data } = folderFixture();
    const run = (...extra: string[]) =>
      runCli(['--home', home, '--json', 'skills', 'run-script', 'tree-list', 'scripts/tree.py', ...extra]);
    const ran = await run('--folder', data, '--file', join(root, 'note.txt'));
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const reply = ran.json();
    // The reply keeps its shape: no field says which inputs were given.
    expect(Object.keys(reply).sort()).toEqual(
      ['duration_ms', 'exit_code', 'files', 'run_id', 'script', 'skill', 'stderr', 'stdout'].sort(),
    );
    expect(JSON.parse(reply.stdout)).toEqual({
      files: {
        'inputs/data/.hidden': 'h',
        'inputs/data/a.csv': 'x,y\n',
        'inputs/data/in-link': 'bb',
        'inputs/data/sub/b.txt': 'bb',
        'inputs/note.txt': 'n',
      },
      written: [],
    });

    const missing = await run('--folder', join(root, 'nope'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--folder .*nope: no such folder/);
    const file = await run('--folder', join(root, 'note.txt'));
    expect(file.code).toBe(2);
    expect(file.stderr).toMatch(/--folder .*note\.txt: not a folder \(give a file with --file\)/);
    writeFileSync(join(root, 'data.txt'), 'd');
    mkdirSync(join(root, 'other', 'data'), { recursive: true });
    const clash = await run('--folder', data, '--folder', join(root, 'other', 'data'));
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/both named data/);
    // Pyodide takes a folder's bytes into its memory: past the run's input budget, TOO_LARGE names it.
    const big = join(root, 'big');
    mkdirSync(big);
    writeFileSync(join(big, 'huge.bin'), '');
    truncateSync(join(big, 'huge.bin'), MAX_SCRIPT_INPUT_BYTES + 1);
    const tooLarge = await run('--folder', big);
    expect(tooLarge.code).toBe(2);
    expect(JSON.parse(tooLarge.stderr).error).toMatchObject({
      code: 'TOO_LARGE',
      message: expect.stringMatching(/more than \d+ bytes.*give a smaller folder/),
    });

    const host = createHost({ home, mode: 'cli', env: {} });
    try {
      const remote = await invokeChannel(
        host.handlers,
        'scripts/run',
        { name: 'tree-list', script: 'scripts/tree.py', folders: [{ name: 'data', path: data }] },
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

const nativePython = nativePythonOrNull();
const sandbox = nativeSandboxSupport();
const nativeMissing = !sandbox.ok ? sandbox.reason : !nativePython ? 'no Python 3.11+' : null;

describe.skipIf(skipWithout(nativeMissing, 'run-script in the OS sandbox'))(
  'run-script in the OS sandbox',
  () => {
    it('binds a 100 MB file and a folder read-only: the script reads the very file, not a copy', async () => {
      const home = tempDir();
      const skill = join(tempDir(), 'big-stat');
      mkdirSync(join(skill, 'scripts'), { recursive: true });
      writeFileSync(
        join(skill, 'SKILL.md'),
        '---\nname: big-stat\ndescription: Sizes and hashes a file.\n---\nRun scripts/stat.py FILE.\n',
      );
      writeFileSync(
        join(skill, 'scripts', 'stat.py'),
        [
          'import hashlib, json, os, sys',
          'h = hashlib.sha256()',
          'with open(sys.argv[1], "rb") as f:',
          '    for chunk in iter(lambda: f.read(1 << 20), b""):',
          '        h.update(chunk)',
          'st = os.stat(sys.argv[1])',
          'tree = sorted(os.path.join(d, n) for d, _, ns in os.walk("inputs") for n in ns)',
          'seen = {p: open(p).read() for p in tree if os.path.isfile(p) and not p.endswith(".bin")}',
          'try:',
          '    open("inputs/data/a.csv", "a").write("x")',
          '    wrote = True',
          'except OSError:',
          '    wrote = False',
          'print(json.dumps({"size": st.st_size, "ino": st.st_ino, "sha256": h.hexdigest(), "tree": tree, "seen": seen, "wrote": wrote}))',
        ].join('\n'),
      );
      expect((await runCli(['--home', home, 'skills', 'import', skill])).code).toBe(0);
      seedNativeEnv(home, 'big-stat', nativePython!);
      acceptNativeRuntime(home, 'big-stat', ['lxml']);

      // 100 MiB, sparse but for random blocks at its start, middle and end: quick to make, and a
      // checksum that a truncated or zero-filled copy would not match.
      const { root, data } = folderFixture();
      const big = join(data, 'big.bin');
      const size = 100 * 1024 * 1024 + 7;
      const fd = openSync(big, 'w');
      try {
        for (const at of [0, size / 2, size - 65_536].map(Math.floor))
          writeSync(fd, randomBytes(65_536), 0, 65_536, at);
        ftruncateSync(fd, size);
      } finally {
        closeSync(fd);
      }
      const hash = createHash('sha256');
      const fd2 = openSync(big, 'r');
      try {
        const buf = Buffer.alloc(1 << 20);
        for (let n = readSync(fd2, buf); n > 0; n = readSync(fd2, buf)) hash.update(buf.subarray(0, n));
      } finally {
        closeSync(fd2);
      }
      const ran = await runCli([
        '--home',
        home,
        '--json',
        'skills',
        'run-script',
        'big-stat',
        'scripts/stat.py',
        'inputs/data/big.bin',
        '--folder',
        data,
        '--file',
        join(root, 'note.txt'),
        '--timeout-ms',
        '120000',
      ]);
      expect(ran.stderr).toBe('');
      expect(ran.code).toBe(0);
      const r = JSON.parse(ran.json().stdout);
      expect(r).toMatchObject({ size, sha256: hash.digest('hex'), wrote: false });
      // The same inode as on this machine: the sandbox binds the file itself (a copy would be a new
      // file, and no program carries its bytes).
      expect(r.ino).toBe(statSync(big).ino);
      // Links resolve inside the sandbox only: the ones out of the folder lead nowhere there.
      expect(r.tree).toEqual([
        'inputs/data/.hidden',
        'inputs/data/a.csv',
        'inputs/data/big.bin',
        'inputs/data/in-link',
        'inputs/data/out-abs',
        'inputs/data/out-rel',
        'inputs/data/sub/b.txt',
        'inputs/note.txt',
      ]);
      expect(r.seen).toEqual({
        'inputs/data/.hidden': 'h',
        'inputs/data/a.csv': 'x,y\n',
        'inputs/data/in-link': 'bb',
        'inputs/data/sub/b.txt': 'bb',
        'inputs/note.txt': 'n',
      });
      expect(readFileSync(join(data, 'a.csv'), 'utf8')).toBe('x,y\n');
    }, 240_000);
    it('takes a --file larger than Pyodide’s input budget when the skill runs natively', async () => {
      const home = tempDir();
      const skill = join(tempDir(), 'size-only');
      mkdirSync(join(skill, 'scripts'), { recursive: true });
      writeFileSync(
        join(skill, 'SKILL.md'),
        '---\nname: size-only\ndescription: Sizes a file.\n---\nRun it.\n',
      );
      writeFileSync(
        join(skill, 'scripts', 'size.py'),
        'import os, sys\nprint(os.path.getsize(sys.argv[1]))\n',
      );
      expect((await runCli(['--home', home, 'skills', 'import', skill])).code).toBe(0);
      seedNativeEnv(home, 'size-only', nativePython!);
      acceptNativeRuntime(home, 'size-only', ['lxml']);
      // 300 MB, sparse: past the 256 MiB Pyodide copies in, nothing for the sandbox's bind.
      const big = join(tempDir(), 'big.bin');
      const size = 300 * 1000 * 1000;
      expect(size).toBeGreaterThan(MAX_SCRIPT_INPUT_BYTES);
      const fd = openSync(big, 'w');
      ftruncateSync(fd, size);
      closeSync(fd);
      const ran = await runCli([
        '--home',
        home,
        'skills',
        'run-script',
        'size-only',
        'scripts/size.py',
        'inputs/big.bin',
        '--file',
        big,
      ]);
      expect(ran.stderr).toBe('');
      expect(ran.code).toBe(0);
      expect(ran.stdout.trim()).toBe(String(size));
    }, 120_000);
  },
);
