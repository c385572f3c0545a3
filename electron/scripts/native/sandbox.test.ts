import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWithout } from '../../test-support/index.js';
import { knownProgramExecutables, programExecutables } from './exec-allow.js';
import { findProgram } from './programs.js';
import { type NativeRunSpec, nativeSandboxSupport, pythonPrefixes, runNativeSandboxed } from './sandbox.js';

const support = nativeSandboxSupport();
const python = (() => {
  const r = spawnSync(process.env.SKILLDESK_PYTHON || 'python3', ['-c', 'import sys;print(sys.executable)'], {
    encoding: 'utf8',
  });
  return r.status === 0 ? r.stdout.trim() : null;
})();

/** Processes whose command line holds `mark` (anything a run left behind). */
function processesWith(mark: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(mark)) out.push(Number(pid));
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

const missing = !support.ok ? support.reason : !python ? 'no python3' : null;

/** Whether this kernel offers Landlock (the ABI version query answers 1 or more). */
const landlock = (() => {
  if (!python) return false;
  const r = spawnSync(
    python,
    [
      '-c',
      'import ctypes; l = ctypes.CDLL(None); l.syscall.restype = ctypes.c_long; print(l.syscall(444, None, 0, 1))',
    ],
    { encoding: 'utf8' },
  );
  return r.status === 0 && Number(r.stdout.trim()) >= 1;
})();

/** What a skill granted `programs` may execute, as the app lists it (`grantedExecutables`). */
const granted = (...programs: string[]) =>
  programs.flatMap((p) => {
    const found = findProgram(p);
    return found ? programExecutables(found) : [];
  });

describe.skipIf(skipWithout(missing, 'the native runtime’s OS sandbox'))(
  'the native runtime’s OS sandbox',
  () => {
    let root: string;
    let skillDir: string;
    let otherVenv: string;
    let prefixes: string[];
    let server: Server;
    let port = 0;
    const secret = `SECRET-${randomBytes(8).toString('hex')}`;

    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), 'skilldesk-native-sbx-'));
      skillDir = join(root, 'skill');
      mkdirSync(join(skillDir, 'scripts'), { recursive: true });
      writeFileSync(join(skillDir, 'SKILL.md'), '---\nname: t\ndescription: t\n---\n');
      otherVenv = join(root, 'other-skill-venv');
      mkdirSync(otherVenv);
      writeFileSync(join(otherVenv, 'token.txt'), secret);
      prefixes = pythonPrefixes(python!);
      process.env.SKILLDESK_SANDBOX_TEST_SECRET = secret;
      server = createServer((s) => s.end('reached'));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => {
      server?.close();
      delete process.env.SKILLDESK_SANDBOX_TEST_SECRET;
      rmSync(root, { recursive: true, force: true });
    });

    const run = (source: string, extra: Partial<NativeRunSpec> = {}) => {
      const name = `s${randomBytes(4).toString('hex')}.py`;
      writeFileSync(join(skillDir, 'scripts', name), source);
      return runNativeSandboxed({
        python: python!,
        pythonPaths: prefixes,
        skillDir,
        script: `scripts/${name}`,
        outDir: join(root, `out-${name}`),
        ...extra,
      });
    };

    it('runs a script in the skill folder with its inputs read-only and out/ writable', async () => {
      const input = join(root, 'data.csv');
      writeFileSync(input, 'a,b\n1,2\n');
      const r = await run(
        `import os, sys
print(sys.argv[1:], sys.stdin.read(), open("inputs/data.csv").read().splitlines()[1])
open("out/result.txt", "w").write("ok")
for p in ("SKILL.md", "inputs/data.csv", "new.txt", "scripts/x.py"):
    try:
        open(p, "a").write("x")
        print("WROTE", p)
    except OSError as e:
        print("refused", p, e.errno)
print(sorted(os.environ))
`,
        {
          argv: ['--x', 'inputs/data.csv'],
          stdin: 'hello',
          inputs: [{ name: 'data.csv', path: input }],
          outDir: join(root, 'out-first'),
        },
      );
      expect(r.sandbox_error).toBeUndefined();
      expect(r.exit_code).toBe(0);
      expect(r.stdout).toContain("['--x', 'inputs/data.csv'] hello 1,2");
      expect(r.stdout).not.toContain('WROTE');
      expect(r.stdout.match(/refused/g)).toHaveLength(4);
      expect(r.stdout).not.toContain('SKILLDESK_SANDBOX_TEST_SECRET');
      expect(readFileSync(join(root, 'out-first', 'result.txt'), 'utf8')).toBe('ok');
      expect(readFileSync(input, 'utf8')).toBe('a,b\n1,2\n');
    });

    it('has no network: neither the internet nor a port of the host', async () => {
      const r = await run(`import socket
for addr in (("127.0.0.1", ${port}), ("1.1.1.1", 443), ("pypi.org", 443)):
    try:
        s = socket.create_connection(addr, timeout=3)
        print("CONNECTED", addr, s.recv(10))
    except OSError as e:
        print("blocked", addr[0], type(e).__name__)
`);
      expect(r.exit_code).toBe(0);
      expect(r.stdout).not.toContain('CONNECTED');
      expect(r.stdout.match(/blocked/g)).toHaveLength(3);
    });

    it('sees no home, no other skill’s files and no secret in /proc', async () => {
      const r = await run(`import glob, os
home = ${JSON.stringify(homedir())}
print("home holds", sorted(os.listdir(home)) if os.path.isdir(home) else [])
for p in (${JSON.stringify(otherVenv)} + "/token.txt", "/etc/shadow"):
    print(p, os.path.exists(p))
print("accounts", open("/etc/passwd").read().count(":x:"))
print(os.path.expanduser("~"))
seen = ""
for f in glob.glob("/proc/*/environ"):
    try:
        seen += open(f, "rb").read().decode("latin-1")
    except OSError:
        pass
print("LEAK" if ${JSON.stringify(secret)} in seen else "clean", len(glob.glob("/proc/[0-9]*")))
`);
      expect(r.exit_code).toBe(0);
      // Only the folders on the way to the Python prefix (pyenv's) may show, and nothing else of home.
      const onTheWay = new Set(
        prefixes
          .filter((p) => p.startsWith(`${homedir()}/`))
          .map((p) => p.slice(homedir().length + 1).split('/')[0]),
      );
      const shown = JSON.parse(/^home holds (.*)$/m.exec(r.stdout)![1]!.replace(/'/g, '"')) as string[];
      expect(shown.filter((n) => !onTheWay.has(n))).toEqual([]);
      expect(r.stdout).toContain(`${otherVenv}/token.txt False`);
      // The made-up user only (see below), none of the host's accounts.
      expect(r.stdout).toContain('accounts 1');
      expect(r.stdout).toContain('/etc/shadow False');
      expect(r.stdout).toMatch(/^\/tmp$/m);
      expect(r.stdout).toMatch(/^clean \d$/m);
    });

    it.skipIf(!landlock)('starts only the interpreter, the base tools and granted programs', async () => {
      // od is on every Linux and no one granted it; sh and the interpreter are the base.
      const od = findProgram('od');
      expect(od).not.toBeNull();
      const source = [
        'import subprocess, sys',
        'print(subprocess.run(["sh", "-c", "echo base $(uname -s)"], capture_output=True, text=True).stdout.strip())',
        'print(subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True).stdout.strip())',
        `for cmd in (["od", "-c", "/etc/passwd"], [${JSON.stringify(od)}, "--version"]):`,
        '    try:',
        '        subprocess.run(cmd, capture_output=True)',
        '        print("RAN", cmd[0])',
        '    except PermissionError as e:',
        '        print("refused", e.errno)',
      ].join('\n');
      const r = await run(source);
      expect(r.stdout.split('\n').filter(Boolean)).toEqual(['base Linux', '42', 'refused 13', 'refused 13']);
      // Granted, it runs.
      const ok = await run(
        'import subprocess\nprint(subprocess.run(["od", "-An", "-c"], input=b"hi", capture_output=True).stdout.decode().split())',
        {
          execs: granted('od'),
        },
      );
      expect(ok.stdout.trim()).toBe("['h', 'i']");
    });

    it.skipIf(!landlock || !findProgram('pdftoppm'))(
      'lets Full Python start the document programs it knows, and no other',
      async () => {
        const r = await run(
          [
            'import subprocess',
            'print(subprocess.run(["pdftoppm", "-v"], capture_output=True, text=True).stderr.split()[0])',
            'try:',
            '    subprocess.run(["od", "-c", "/etc/passwd"], capture_output=True)',
            '    print("RAN od")',
            'except PermissionError:',
            '    print("od refused")',
          ].join('\n'),
          { execs: knownProgramExecutables() },
        );
        expect(r.stdout.split('\n').filter(Boolean)).toEqual(['pdftoppm', 'od refused']);
      },
    );

    it('refuses ptrace', async () => {
      const r = await run(`import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
pid = os.fork()
if pid == 0:
    time.sleep(5)
    os._exit(0)
rc = libc.ptrace(16, pid, 0, 0)
print("ptrace", rc, os.strerror(ctypes.get_errno()))
os.kill(pid, 9)
`);
      expect(r.exit_code).toBe(0);
      expect(r.stdout).toContain('ptrace -1 Operation not permitted');
    });

    it('stops a fork bomb and leaves nothing running', async () => {
      const mark = `forkbomb-${randomBytes(6).toString('hex')}`;
      const r = await run(
        `import os
while True:
    try:
        os.fork()
    except OSError:
        pass
`,
        { argv: [mark], limits: { timeout_ms: 3000, processes: 32 } },
      );
      expect(r.exit_code).toBe(-1);
      expect(r.sandbox_error?.code).toBe('SANDBOX_TIMEOUT');
      expect(processesWith(mark)).toEqual([]);
    });

    it('kills a process the script left behind', async () => {
      const mark = `leftover-${randomBytes(6).toString('hex')}`;
      const r = await run(
        `import os, subprocess
subprocess.Popen(["sleep", "600", "${mark}"], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if os.fork() == 0:
    os.setsid()
    os.execvp("sleep", ["sleep", "601", "${mark}"])
print("detached")
`,
      );
      expect(r.exit_code).toBe(0);
      expect(r.stdout).toContain('detached');
      expect(processesWith(mark)).toEqual([]);
    });

    it('stops a 10 GB write at the file-size limit, and out/ at its total', async () => {
      const big = await run(
        `f = open("out/big.bin", "wb")
chunk = b"x" * (1 << 20)
for _ in range(10 * 1024):
    f.write(chunk)
`,
        { limits: { file_bytes: 8 * 1024 * 1024 } },
      );
      expect(big.exit_code).toBe(1);
      expect(big.stderr).toContain('File too large');
      const many = await run(
        `chunk = b"x" * (1 << 20)
for i in range(10 * 1024):
    with open(f"out/part{i}.bin", "wb") as f:
        f.write(chunk * 4)
`,
        { limits: { file_bytes: 8 * 1024 * 1024, out_dir_bytes: 32 * 1024 * 1024 } },
      );
      expect(many.exit_code).toBe(-1);
      expect(many.sandbox_error?.code).toBe('SANDBOX_LIMIT');
      expect(many.sandbox_error?.message).toContain('out/');
      const tmp = await run(
        `f = open("/tmp/big.bin", "wb")
for _ in range(10 * 1024):
    f.write(b"x" * (1 << 20))
`,
        { limits: { tmp_bytes: 8 * 1024 * 1024 } },
      );
      expect(tmp.exit_code).toBe(1);
      expect(tmp.stderr).toContain('No space left on device');
    });

    it('bounds memory and CPU time', async () => {
      const mem = await run('x = bytearray(8 * 1024 ** 3)\n', { limits: { memory_bytes: 512 * 1024 ** 2 } });
      expect(mem.exit_code).toBe(1);
      expect(mem.stderr).toContain('MemoryError');
      const cpu = await run('while True:\n    pass\n', { limits: { cpu_seconds: 1, timeout_ms: 20_000 } });
      expect(cpu.exit_code).toBe(-1);
      expect(cpu.sandbox_error?.code).toBe('SANDBOX_LIMIT');
      expect(cpu.sandbox_error?.message).toContain('CPU time');
    });

    it('shows programs one made-up user, never the host’s accounts', async () => {
      const r = await run(
        'import os, pwd, grp\np = pwd.getpwuid(os.getuid())\nprint(p.pw_name, p.pw_dir, len(pwd.getpwall()), grp.getgrgid(os.getgid()).gr_name)\n',
      );
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe('sandbox /tmp 1 sandbox');
    });

    it('stops at the wall-clock limit and keeps only so much output', async () => {
      const r = await run(
        'import sys, time\nsys.stdout.write("y" * 5000)\nsys.stdout.flush()\ntime.sleep(60)\n',
        {
          limits: { timeout_ms: 1500, output_bytes: 1000 },
        },
      );
      expect(r.sandbox_error?.code).toBe('SANDBOX_TIMEOUT');
      expect(r.stdout).toHaveLength(1000);
      expect(r.truncated?.stdout).toBe(true);
    });
  },
);

const programs = ['soffice', 'pdftoppm'].filter(
  (p) => spawnSync('sh', ['-c', `command -v ${p}`]).status !== 0,
);
const programsMissing = missing ?? (programs.length ? `${programs.join(' and ')} not installed` : null);

// The document skills call LibreOffice and Poppler from their scripts: both must start inside the
// sandbox (no network, read-only system, a made-up user) and do their work on the run's files.
describe.skipIf(skipWithout(programsMissing, 'external programs in the OS sandbox'))(
  'external programs in the OS sandbox',
  () => {
    it('converts a document with LibreOffice and renders its page with pdftoppm', async () => {
      const root = mkdtempSync(join(tmpdir(), 'skilldesk-native-prog-'));
      try {
        const skillDir = join(root, 'skill');
        mkdirSync(join(skillDir, 'scripts'), { recursive: true });
        writeFileSync(join(skillDir, 'SKILL.md'), '---\nname: t\ndescription: t\n---\n');
        writeFileSync(
          join(skillDir, 'scripts', 'render.py'),
          [
            'import os, subprocess, sys',
            'env = dict(os.environ, SAL_USE_VCLPLUGIN="svp")',
            'r = subprocess.run(["soffice", "--headless", "--convert-to", "pdf", "--outdir", "/tmp", sys.argv[1]], capture_output=True, text=True, env=env, timeout=120)',
            'assert r.returncode == 0 and os.path.exists("/tmp/note.pdf"), r.stdout + r.stderr',
            'subprocess.run(["pdftoppm", "-png", "-r", "40", "-singlefile", "/tmp/note.pdf", "out/page"], check=True)',
            'print("ok")',
          ].join('\n'),
        );
        const note = join(root, 'note.txt');
        writeFileSync(note, 'Quarterly figures, rendered inside the sandbox.\n');
        const outDir = join(root, 'out');
        const r = await runNativeSandboxed({
          python: python!,
          pythonPaths: pythonPrefixes(python!),
          skillDir,
          script: 'scripts/render.py',
          argv: ['inputs/note.txt'],
          inputs: [{ name: 'note.txt', path: note }],
          outDir,
          limits: { timeout_ms: 180_000 },
          execs: granted('soffice', 'pdftoppm'),
        });
        expect(r.stderr).not.toContain('Error');
        expect(r.stdout.trim()).toBe('ok');
        const png = readFileSync(join(outDir, 'page.png'));
        expect([...png.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    }, 240_000);
  },
);
