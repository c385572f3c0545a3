// Escape and abuse attempts against the sandbox. Each case proves the attack is contained and
// that the next run in the same pool still succeeds (and sees none of the attack's state).
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxHost } from './host-functions.js';
import { SandboxPool } from './pool.js';
import type { SandboxRunResult } from './types.js';

const SECRET = `sk-test-${process.pid}-secret`;
const CACHE = join(tmpdir(), 'skilldesk-test-sandbox-cache');
let pool: SandboxPool;
let server: Server;
let port = 0;
let connections = 0;
const sentinel = join(tmpdir(), `skilldesk-sentinel-${process.pid}.txt`);

beforeAll(async () => {
  process.env.SKILLDESK_TEST_SECRET = SECRET;
  writeFileSync(sentinel, SECRET);
  server = createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as { port: number }).port;
  pool = new SandboxPool({ cacheDir: CACHE, spares: 2, limits: { timeout_ms: 1500, grace_ms: 300 } });
  await pool.warmup();
}, 120_000);

afterAll(async () => {
  await pool?.close();
  await new Promise((r) => server?.close(r));
  delete process.env.SKILLDESK_TEST_SECRET;
});

/** The canary: a trivial program that must work after every attack, in a clean interpreter. */
const CANARY = `
import builtins, sys, os, json
assert not hasattr(builtins, 'leaked'), 'builtins leaked from an earlier run'
assert 'evil' not in sys.modules, 'sys.modules leaked'
assert json.dumps([1]) == '[1]', 'json was replaced'
assert not os.path.exists('/tmp/persist.txt'), 'a file survived'
import skilldesk
skilldesk.submit({'canary': 42})
`;

async function expectNextRunClean(): Promise<void> {
  const r = await pool.run(CANARY);
  expect(r.error).toBeNull();
  expect(r.ok).toBe(true);
  expect(r.result).toEqual({ canary: 42 });
}

function noSecret(r: SandboxRunResult): void {
  expect(JSON.stringify(r)).not.toContain(SECRET);
}

async function attack(code: string, opts: Parameters<SandboxPool['run']>[1] = {}): Promise<SandboxRunResult> {
  const r = await pool.run(code, opts);
  noSecret(r);
  return r;
}

describe('sandbox escape attempts', () => {
  it('1. `import js` is not available', async () => {
    const r = await attack('import js\nprint(js.process.env)');
    expect(r.error?.type).toBe('ModuleNotFoundError');
    await expectNextRunClean();
  });

  it('2. `import pyodide_js` is not available', async () => {
    const r = await attack('import pyodide_js\npyodide_js.mountNodeFS("/host", "/")');
    expect(r.error?.type).toBe('ModuleNotFoundError');
    await expectNextRunClean();
  });

  it('3. pyodide.code.run_js cannot evaluate JavaScript', async () => {
    const r = await attack('import pyodide.code\nprint(pyodide.code.run_js("process.env"))');
    expect(r.ok).toBe(false);
    await expectNextRunClean();
  });

  it('4. dynamic code evaluation on the JS side is refused (Function constructor)', async () => {
    const r = await attack(
      'from pyodide.ffi import to_js\no = to_js({})\nprint(o.constructor.constructor("return process")().env)',
    );
    expect(r.ok).toBe(false);
    // The gate stops the conversion to a JS object before any constructor is reached.
    expect(r.error?.type).toBe('SandboxViolation');
    await expectNextRunClean();
  });

  it('5. no JS globals reachable from the Python side (re-registering js)', async () => {
    const r = await attack(
      [
        'import sys',
        'from _pyodide._importhook import register_js_module',
        'from pyodide.ffi import to_js',
        'g = to_js({})',
        'print(getattr(g, "process", None), getattr(g, "require", None))',
        'import pyodide_js',
      ].join('\n'),
    );
    expect(r.ok).toBe(false);
    expect(r.stdout).not.toMatch(/pid|versions/);
    await expectNextRunClean();
  });

  it('6. os.system cannot start a shell', async () => {
    const r = await attack('import os\nprint("rc", os.system("echo pwned > /tmp/pwned"))');
    expect(r.stdout).not.toContain('pwned');
    expect(r.ok === false || /rc -?\d+/.test(r.stdout)).toBe(true);
    await expectNextRunClean();
  });

  it('7. subprocess cannot start processes', async () => {
    const r = await attack('import subprocess\nprint(subprocess.run(["id"], capture_output=True))');
    expect(r.ok).toBe(false);
    expect(r.error?.type).toBe('OSError');
    await expectNextRunClean();
  });

  it('8. host files are not readable', async () => {
    const r = await attack(
      `for p in [${JSON.stringify(sentinel)}, "/etc/passwd", "/proc/self/environ"]:\n    try:\n        print(open(p).read())\n    except OSError as e:\n        print("denied", type(e).__name__)`,
    );
    expect(r.stdout).not.toContain('root:');
    expect(r.stdout).toContain('denied');
    await expectNextRunClean();
  });

  it('9. the host environment is invisible', async () => {
    const r = await attack('import os\nprint(dict(os.environ))');
    expect(r.ok).toBe(true);
    expect(r.stdout).not.toContain('SKILLDESK_TEST_SECRET');
    expect(r.stdout).not.toContain('PATH=/usr');
    await expectNextRunClean();
  });

  it('10. sockets cannot connect', async () => {
    const before = connections;
    const r = await attack(
      `import socket\ns = socket.socket()\ns.settimeout(1)\ns.connect(("127.0.0.1", ${port}))\nprint("connected")`,
    );
    expect(r.ok).toBe(false);
    expect(r.stdout).not.toContain('connected');
    expect(connections).toBe(before);
    await expectNextRunClean();
  });

  it('11. pyodide.http and fetch cannot reach the network', async () => {
    const before = connections;
    const r = await attack(
      `import pyodide.http\ntry:\n    print(pyodide.http.open_url("http://127.0.0.1:${port}/"))\nexcept Exception as e:\n    print("blocked", type(e).__name__)\nimport asyncio\nasync def go():\n    return await pyodide.http.pyfetch("http://127.0.0.1:${port}/")\ntry:\n    asyncio.run(go())\nexcept BaseException as e:\n    print("blocked", type(e).__name__)`,
      // Importing pyodide.http and asyncio takes a while on a loaded machine: give it time to fail.
      { limits: { timeout_ms: 15_000 } },
    );
    expect(r.stdout).toContain('blocked');
    expect(connections).toBe(before);
    await expectNextRunClean();
  });

  it('12. urllib cannot reach the network', async () => {
    const before = connections;
    const r = await attack(
      `import urllib.request\nurllib.request.urlopen("http://127.0.0.1:${port}/", timeout=1)`,
    );
    expect(r.ok).toBe(false);
    expect(connections).toBe(before);
    await expectNextRunClean();
  });

  it('13. an infinite pure-Python loop is interrupted at the deadline', async () => {
    const r = await attack('x = 0\nwhile True:\n    x += 1', { limits: { timeout_ms: 300 } });
    expect(r.error?.code).toBe('SANDBOX_TIMEOUT');
    await expectNextRunClean();
  });

  it('14. a loop that swallows KeyboardInterrupt is terminated', async () => {
    const r = await attack(
      'while True:\n    try:\n        while True: pass\n    except BaseException:\n        pass',
      {
        limits: { timeout_ms: 300, grace_ms: 200 },
      },
    );
    expect(r.error?.code).toBe('SANDBOX_TIMEOUT');
    await expectNextRunClean();
  });

  it('15. a loop inside a C-level call (regex backtracking) is terminated', async () => {
    const r = await attack('import re\nre.match(r"(a*)*b", "a" * 64)', {
      limits: { timeout_ms: 300, grace_ms: 200 },
    });
    expect(r.error?.code).toBe('SANDBOX_TIMEOUT');
    await expectNextRunClean();
  });

  it('16. a long sleep is cut at the deadline', async () => {
    const r = await attack('import time\ntime.sleep(3600)', { limits: { timeout_ms: 300, grace_ms: 200 } });
    expect(r.error?.code).toBe('SANDBOX_TIMEOUT');
    await expectNextRunClean();
  });

  it('17. a memory bomb in one allocation hits the memory cap', async () => {
    const r = await attack('x = bytearray(2 * 1024 ** 3)', { limits: { memory_mb: 128 } });
    expect(r.ok).toBe(false);
    expect(r.error?.type).toMatch(/MemoryError|OverflowError/);
    await expectNextRunClean();
  });

  it('18. a growing memory bomb hits the memory cap with a typed limit error', async () => {
    const r = await attack('l = []\nwhile True:\n    l.append(bytearray(8 * 1024 * 1024))', {
      limits: { memory_mb: 128 },
    });
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe('SANDBOX_LIMIT');
    await expectNextRunClean();
  });

  it('19. a recursion bomb raises RecursionError', async () => {
    const r = await attack('def f(n): return f(n + 1)\nf(0)');
    expect(r.error?.type).toBe('RecursionError');
    await expectNextRunClean();
  });

  it('20. a recursion bomb with a raised limit overflows the stack, contained', async () => {
    const r = await attack('import sys\nsys.setrecursionlimit(10 ** 7)\ndef f(n): return f(n + 1)\nf(0)');
    expect(r.ok).toBe(false);
    await expectNextRunClean();
  });

  it('21. an output flood is truncated with a marker', async () => {
    const r = await attack(
      'for i in range(30000):\n    print("x" * 100)\nimport sys\nsys.stderr.write("e" * 10 ** 6)',
      {
        limits: { output_bytes: 10_000, timeout_ms: 10_000 },
      },
    );
    expect(r.ok).toBe(true);
    expect(r.stdout_truncated).toBe(true);
    expect(r.stderr_truncated).toBe(true);
    expect(r.stdout.length).toBeLessThan(11_000);
    expect(r.stdout).toMatch(/\[output truncated at 10000 bytes\]/);
    await expectNextRunClean();
  });

  it('22. a huge submit is refused with a limit error; a second submit never replaces the first', async () => {
    const big = await attack('import skilldesk\nskilldesk.submit("x" * (2 * 1024 * 1024))', {
      limits: { result_bytes: 1024 },
    });
    expect(big.ok).toBe(false);
    expect(big.submitted).toBe(false);
    expect(big.error?.code).toBe('SANDBOX_LIMIT');
    const twice = await attack('import skilldesk\nprint(skilldesk.submit(1), skilldesk.submit(2))');
    expect(twice.result).toBe(1);
    expect(twice.stdout).toContain('True False');
    await expectNextRunClean();
  });

  it('23. state does not persist between runs (builtins, sys.modules, files, json)', async () => {
    const r = await attack(
      [
        'import builtins, sys, json, types',
        'builtins.leaked = True',
        'sys.modules["evil"] = types.ModuleType("evil")',
        'json.dumps = lambda *a, **k: "owned"',
        'open("/tmp/persist.txt", "w").write("x")',
      ].join('\n'),
    );
    expect(r.ok).toBe(true);
    await expectNextRunClean();
  });

  it('24. JS prototype pollution cannot start: no JS object is reachable', async () => {
    const r = await attack(
      'from pyodide.ffi import to_js\no = to_js({})\no.constructor.prototype.polluted = 1\nprint(to_js({}).polluted)',
    );
    expect(r.ok).toBe(false);
    expect(r.error?.type).toBe('SandboxViolation');
    expect(r.stdout).not.toContain('1');
    await expectNextRunClean();
  });

  it('25. threads cannot outlive the run', async () => {
    const r = await attack('import threading\nthreading.Thread(target=lambda: None).start()');
    expect(r.ok).toBe(false);
    await expectNextRunClean();
  });

  it('26. os._exit and sys.exit do not take the pool down', async () => {
    const a = await attack('import os\nos._exit(3)');
    expect(a.ok).toBe(false);
    const b = await attack('import sys\nsys.exit(5)');
    expect(b.error?.type).toBe('SystemExit');
    await expectNextRunClean();
  });

  it('27. stdin reads EOF', async () => {
    const r = await attack('input()');
    expect(r.error?.type).toBe('EOFError');
    await expectNextRunClean();
  });

  it('28. raw writes to the host device: junk and oversized requests are refused', async () => {
    const r = await attack(
      [
        'import os',
        'fd = os.open("/dev/skilldesk", os.O_RDWR)',
        'os.write(fd, b"not json")',
        'print(os.read(fd, 1000))',
        'os.close(fd)',
        'fd = os.open("/dev/skilldesk", os.O_RDWR)',
        'try:',
        '    os.write(fd, b"x" * (9 * 1024 * 1024))',
        'except OSError as e:',
        '    print("refused", e.errno)',
        'os.close(fd)',
        'import skilldesk',
        'skilldesk.get_page("x")',
      ].join('\n'),
    );
    expect(r.stdout).toContain('INVALID_INPUT');
    expect(r.stdout).toContain('refused 22');
    expect(r.error?.code).toBe('HANDLER_NOT_AVAILABLE');
    await expectNextRunClean();
  });

  it('29. unknown host functions are refused by name', async () => {
    const code = [
      'import os',
      'for name in ["constructor", "__proto__", "toString", "call"]:',
      '    fd = os.open("/dev/skilldesk", os.O_RDWR)',
      '    os.write(fd, ("{\\"fn\\": \\"%s\\", \\"args\\": []}" % name).encode())',
      '    print(os.read(fd, 1000))',
      '    os.close(fd)',
    ].join('\n');
    const r = await attack(code, { host: createSandboxHost({}) });
    expect(r.ok).toBe(true);
    expect(r.stdout.match(/NOT_FOUND/g)?.length).toBe(4);
    await expectNextRunClean();
  });

  it('30. killing the sandbox process mid-run fails that run and the pool recovers', async () => {
    const pending = pool.run('while True: pass', { limits: { timeout_ms: 20_000 } });
    await new Promise((r) => setTimeout(r, 300));
    const pid = pool.pid;
    expect(pid).toBeTypeOf('number');
    process.kill(pid!, 'SIGKILL');
    const r = await pending;
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe('SANDBOX_FAILED');
    await expectNextRunClean();
  }, 60_000);
});

describe('sandbox process lockdown', () => {
  it('refuses to run (fails closed) when the permission flags are not honoured', async () => {
    const { spawn } = await import('node:child_process');
    const unlocked = new SandboxPool({
      spawn: (spec) => {
        const child = spawn(process.execPath, [spec.entry], {
          env: { ...process.env },
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        return {
          pid: child.pid,
          isolation: { method: 'none', blocks_tcp: false, blocks_unix: false, detail: 'test' },
          write: (chunk) => child.stdin.write(chunk),
          onData: (cb) => child.stdout.on('data', (b: Buffer) => cb(new Uint8Array(b))),
          onExit: (cb) => child.on('exit', cb),
          kill: () => child.kill('SIGKILL'),
          stderrTail: () => '',
        };
      },
      allowInProcessIsolation: true,
    });
    await expect(unlocked.run('print(1)')).rejects.toMatchObject({ code: 'SANDBOX_FAILED' });
    await expect(unlocked.run('print(1)')).rejects.toThrow(/not locked down/);
    await unlocked.close();
  });
});
