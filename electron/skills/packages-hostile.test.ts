// A hostile requirements.txt never reaches pip: refused at import (channel and CLI) and at
// install, with a loopback "index" named in every hostile line that must see no request. pip's
// own environment and argv are read from the child process itself: SKILLDESK_PYTHON is a wrapper
// that records os.environ, sys.argv, its working folder and the requirements file it was given,
// then execs the real Python. No test here needs the internet.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { devNull, homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Result } from '../contract/channels.js';
import { AppError } from '../contract/errors.js';
import { createHost, type Host } from '../host.js';
import type { Skill } from '../store/index.js';
import { quietLogger, runCli, skipWithout, tempDir } from '../test-support/index.js';
import { invokeChannel } from '../transport/dispatch.js';
import { hostileRequirementLines } from './hostile-requirements.js';
import { installSkillPackages } from './packages.js';

const real = spawnSync('python3', ['-c', 'import sys, pip; print(sys.executable)'], { encoding: 'utf8' });
const missing = real.status === 0 ? null : 'python3 with pip is not available';

function skillFiles(name: string, requirements: string) {
  const files: Record<string, string> = {
    [`${name}/SKILL.md`]: `---\nname: ${name}\ndescription: Reads PDFs.\n---\nRun scripts/read.py.\n`,
    [`${name}/scripts/read.py`]: 'import pypdf\n',
    [`${name}/scripts/requirements.txt`]: requirements,
  };
  return Object.entries(files).map(([path, text]) => ({
    path,
    data_base64: Buffer.from(text).toString('base64'),
  }));
}

/** A skill as the store holds one, for a requirements.txt stored before import checked it. */
function storedSkill(name: string, requirements: string): Skill {
  return {
    name,
    artifacts: [
      {
        kind: 'resource',
        name: 'scripts/requirements.txt',
        content: requirements,
        metadata: { path: 'scripts/requirements.txt' },
      },
    ],
  } as unknown as Skill;
}

describe.skipIf(skipWithout(missing, 'hostile requirements.txt'))('hostile requirements.txt', () => {
  // Folders of the whole suite (tempDir's are removed after each test).
  const root = mkdtempSync(join(tmpdir(), 'skilldesk-hostile-'));
  const home = join(root, 'home');
  const dump = join(root, 'pip-calls.jsonl');
  const canary = `canary-${process.pid}-${Date.now()}`;
  const saved = {
    py: process.env.SKILLDESK_PYTHON,
    canary: process.env.SKILLDESK_TEST_CANARY,
    openai: process.env.OPENAI_API_KEY,
  };
  const requests: string[] = [];
  let index: Server;
  let indexUrl = '';
  let host: Host;

  beforeAll(async () => {
    index = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.writeHead(404).end();
    });
    await new Promise<void>((ok) => index.listen(0, '127.0.0.1', ok));
    const addr = index.address();
    indexUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    mkdirSync(home);
    const wrapper = join(root, 'python-wrapper');
    writeFileSync(
      wrapper,
      `#!${real.stdout.trim()}
import json, os, sys
args = sys.argv[1:]
reqs = None
if '-r' in args:
    with open(args[args.index('-r') + 1], encoding='utf-8') as f:
        reqs = f.read()
with open(${JSON.stringify(dump)}, 'a', encoding='utf-8') as f:
    f.write(json.dumps({'env': dict(os.environ), 'argv': args, 'cwd': os.getcwd(), 'requirements': reqs}) + '\\n')
os.execv(sys.executable, [sys.executable] + args)
`,
    );
    chmodSync(wrapper, 0o755);
    process.env.SKILLDESK_PYTHON = wrapper;
    process.env.SKILLDESK_TEST_CANARY = canary;
    process.env.OPENAI_API_KEY = `sk-${canary}`;
    host = createHost({ home, env: {}, mode: 'test', logger: quietLogger });
  });

  afterAll(async () => {
    await host?.dispose();
    await new Promise<void>((ok) => index.close(() => ok()));
    rmSync(root, { recursive: true, force: true });
    for (const [k, v] of [
      ['SKILLDESK_PYTHON', saved.py],
      ['SKILLDESK_TEST_CANARY', saved.canary],
      ['OPENAI_API_KEY', saved.openai],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  const call = async <T>(channel: string, req: unknown) =>
    (await invokeChannel(host.handlers, channel, req, { transport: 'in-process' }, quietLogger)) as Result<T>;

  it('every hostile line is refused at import and at install; pip never starts, the index sees nothing', async () => {
    const cases = hostileRequirementLines(indexUrl);
    expect(cases.length).toBeGreaterThan(90);
    for (const c of cases) {
      const text = `pypdf\n${c.line}\n`;
      // Dropped files answer with what was refused (data), writing nothing.
      const imported = await call<{
        written: boolean;
        packages: Array<{ outcome: string; reason?: string }>;
      }>('skills/import-files', { files: skillFiles('hostile', text), scope: 'account' });
      expect(imported.ok && imported.value.written, c.label).toBe(false);
      const refused = imported.ok ? imported.value.packages[0] : undefined;
      expect(refused?.outcome, c.label).toBe('refused');
      expect(refused?.reason, c.label).toMatch(/scripts\/requirements\.txt line [23], column \d+: /);
      expect(refused?.reason, c.label).toContain(c.names);
      // A JSON package carrying the same file is refused by the package channel too.
      const pkg = await call('skills/import-package', {
        package: {
          name: 'hostile',
          description: 'Reads PDFs.',
          artifacts: [
            { kind: 'approach', name: 'SKILL.md', content: 'Run it.' },
            {
              kind: 'resource',
              name: 'scripts/requirements.txt',
              content: text,
              metadata: { path: 'scripts/requirements.txt' },
            },
          ],
        },
        scope: 'account',
      });
      expect(pkg, c.label).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
      expect(!pkg.ok && pkg.error.message, c.label).toMatch(/requirements\.txt line [23], column \d+: /);
      const installed = await installSkillPackages(home, storedSkill('hostile', text)).then(
        () => null,
        (e: unknown) => e,
      );
      expect(installed, c.label).toBeInstanceOf(AppError);
      expect((installed as AppError).message, c.label).toMatch(
        /^hostile\/scripts\/requirements\.txt line [23], column \d+: /,
      );
    }
    expect((await call('skills/get', { name: 'hostile' })).ok).toBe(false);
    expect(existsSync(dump), 'pip was started').toBe(false);
    expect(requests).toEqual([]);
  }, 60_000);

  it('skills import refuses the folder, naming file, line and column, and exits 2', async () => {
    const dir = tempDir();
    for (const f of skillFiles(
      'sneaky',
      `pypdf\nrt4pkg==1.0 ; python_version >= "3"\u2028--index-url ${indexUrl}/\n`,
    )) {
      mkdirSync(join(dir, dirname(f.path)), { recursive: true });
      writeFileSync(join(dir, f.path), Buffer.from(f.data_base64, 'base64'));
    }
    const r = await runCli([
      '--home',
      tempDir(),
      'skills',
      'import',
      '--install-packages',
      join(dir, 'sneaky'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/scripts\/requirements\.txt line 2, column 36: <U\+2028> \(a line separator\)/);
    expect(existsSync(dump)).toBe(false);
    expect(requests).toEqual([]);
  }, 60_000);

  it('the index is the user’s setting: https only, no credentials', async () => {
    for (const bad of [`${indexUrl}/simple/`, 'https://user:pw@example.com/simple/', 'ftp://example.com/']) {
      const r = await call('settings/set-packages', { index_url: bad });
      expect(r, bad).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    }
    const pypi = await call<{ packages: unknown }>('settings/set-packages', { index_url: '' });
    expect(pypi.ok && pypi.value.packages).toEqual({
      index_url: null,
      effective_index_url: 'https://pypi.org/simple/',
    });
  });

  it('pip runs clean: environment, argv, working folder and requirements seen from the child itself', async () => {
    // The user's index: https on a closed loopback port, so pip fails fast without the internet.
    const closed = await new Promise<number>((ok) => {
      const s = createNetServer().listen(0, '127.0.0.1', () => {
        const a = s.address();
        s.close(() => ok(typeof a === 'object' && a ? a.port : 1));
      });
    });
    const userIndex = `https://127.0.0.1:${closed}/simple/`;
    expect((await call('settings/set-packages', { index_url: userIndex })).ok).toBe(true);
    const files = skillFiles('clean-env', 'PyPDF >= 5.0 ; python_version >= "3.8"  # reads PDFs\n');
    expect((await call('skills/import-files', { files, scope: 'account' })).ok).toBe(true);
    const r = await call('scripts/install-packages', { name: 'clean-env' });
    expect(r).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(!r.ok && r.error.message).toMatch(
      /could not reach the package index https:\/\/127\.0\.0\.1:\d+\/simple\//,
    );

    const calls = readFileSync(dump, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(calls).toHaveLength(1);
    const { env, argv, cwd, requirements } = calls[0] as {
      env: Record<string, string>;
      argv: string[];
      cwd: string;
      requirements: string;
    };
    // No variable of the app's: the canary and the provider key are nowhere, in names or values.
    const everything = JSON.stringify(env);
    expect(everything).not.toContain(canary);
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(env.SKILLDESK_TEST_CANARY).toBeUndefined();
    expect(
      Object.keys(env)
        .filter((k) => k.startsWith('PIP_'))
        .sort(),
    ).toEqual(['PIP_CONFIG_FILE', 'PIP_DISABLE_PIP_VERSION_CHECK', 'PIP_NO_CACHE_DIR', 'PIP_NO_INPUT']);
    expect(env.PIP_CONFIG_FILE).toBe(devNull);
    expect(env.HOME).toMatch(/skilldesk-pip-home-/);
    expect(env.HOME).not.toBe(homedir());
    expect(existsSync(env.HOME!), 'the temporary HOME is removed afterwards').toBe(false);
    expect(cwd).toBe(env.HOME);
    expect(argv.slice(0, 3)).toEqual(['-m', 'pip', 'download']);
    for (const flag of ['--isolated', '--no-input', '--no-cache-dir', '--only-binary=:all:'])
      expect(argv).toContain(flag);
    expect(argv[argv.indexOf('--index-url') + 1]).toBe(userIndex);
    expect(argv.filter((a) => a === '--index-url' || a.startsWith('--extra-index-url'))).toHaveLength(1);
    // pip read SkillDesk's own requirements, never the skill's file (nor its path).
    expect(requirements).toBe('PyPDF>=5.0 ; python_version >= "3.8"\n');
    expect(argv.join(' ')).not.toMatch(/clean-env|scripts\/requirements/);
    expect(requests).toEqual([]);
  }, 120_000);
});
