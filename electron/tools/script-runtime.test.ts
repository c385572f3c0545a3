// The skill page's script-runtime channels against a real host and store: the runtime said in words,
// the imports proposal of a skill without requirements.txt (read by the real Python), the
// acceptance of the OS sandbox kept in the account folder and taken back, and — with PyPI — a
// compiled package installed from the confirmed proposal, which turns the runtime native: refused
// until accepted, run in the OS sandbox once accepted, refused again once revoked.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type {
  InstallPackagesRes,
  ScriptRuntimeStatus,
  SetNativeRuntimeRes,
} from '../contract/builtin-tools.js';
import type { Result } from '../contract/channels.js';
import type { ListProgressRes } from '../contract/progress.js';
import { createHost, type Host } from '../host.js';
import { nativeSandboxSupport, PYODIDE_REASON, RUNTIME_GRANTS_FILE } from '../scripts/index.js';
import { quietLogger, runCli, skipWithout, tempDir } from '../test-support/index.js';
import { nativePythonOrNull, pypiReachable } from '../test-support/native-env.js';
import { invokeChannel } from '../transport/dispatch.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const python = nativePythonOrNull();
const pypi = pypiReachable(python, 'markupsafe');

function open(home = tempDir()) {
  const host: Host = createHost({ home, env: {}, mode: 'test', logger: quietLogger });
  cleanups.push(() => host.dispose());
  const call = async <T>(channel: string, req: unknown): Promise<Result<T>> =>
    (await invokeChannel(host.handlers, channel, req, { transport: 'ws' }, quietLogger)) as Result<T>;
  const ok = async <T>(channel: string, req: unknown): Promise<T> => {
    const r = await call<T>(channel, req);
    if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
    return r.value;
  };
  return { home, call, ok };
}

const b64 = (text: string) => Buffer.from(text).toString('base64');
async function importSkill(app: ReturnType<typeof open>, name: string, files: Record<string, string>) {
  await app.ok('skills/import-files', {
    files: [
      {
        path: `${name}/SKILL.md`,
        data_base64: b64(`---\nname: ${name}\ndescription: ${name} test skill\n---\nUse it.\n`),
      },
      ...Object.entries(files).map(([path, text]) => ({ path: `${name}/${path}`, data_base64: b64(text) })),
    ],
    scope: 'account',
  });
}

const grants = (home: string) =>
  JSON.parse(readFileSync(join(home, RUNTIME_GRANTS_FILE), 'utf8')) as {
    skills: Record<string, { accepted_at: string; compiled: string[] }>;
  };

describe('script runtime channels', () => {
  it.skipIf(skipWithout(!python && 'no Python 3.11+', 'the imports proposal'))(
    'say the runtime in words and propose what the scripts import, installing nothing',
    async () => {
      const app = open();
      await importSkill(app, 'docs', {
        'scripts/fill.py': 'import json, sys\nfrom docx import Document\nimport helpers\n',
        'scripts/thumb.py':
          'import subprocess\nfrom PIL import Image\nimport helpers\nsubprocess.run(["skilldesk-no-such-program", "x"])\n',
        'scripts/helpers.py': 'import os\n',
      });
      const s = await app.ok<ScriptRuntimeStatus>('scripts/runtime-status', { name: 'docs' });
      const sandbox = nativeSandboxSupport();
      expect(s).toEqual({
        skill: 'docs',
        has_scripts: true,
        runtime: 'pyodide',
        reason: PYODIDE_REASON,
        compiled: [],
        native_accepted: false,
        accepted_at: null,
        os_sandbox_available: sandbox.ok,
        os_sandbox_reason: sandbox.ok ? null : sandbox.reason,
        has_requirements: false,
        installed: null,
        proposed: [
          { module: 'docx', distribution: 'python-docx', files: ['scripts/fill.py'] },
          { module: 'PIL', distribution: 'Pillow', files: ['scripts/thumb.py'] },
        ],
        proposed_error: null,
        programs: [
          { program: 'skilldesk-no-such-program', path: null, files: ['scripts/thumb.py'], granted: false },
        ],
        missing_programs:
          'not installed on this computer: skilldesk-no-such-program, which scripts/thumb.py starts. Those scripts fail until it is installed; the others run.',
      });
      // Installing something other than what was shown stops before pip runs.
      const other = await app.call<InstallPackagesRes>('scripts/install-packages', {
        name: 'docs',
        from_imports: true,
        native: true,
        packages: ['python-docx'],
      });
      expect(other).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
      expect(!other.ok && other.error.message).toContain(
        'now import python-docx, Pillow, not what was shown',
      );
      expect((await app.ok<ScriptRuntimeStatus>('scripts/runtime-status', { name: 'docs' })).installed).toBe(
        null,
      );

      // A script Python cannot parse is named, not guessed at.
      await importSkill(app, 'broken', { 'scripts/a.py': 'import yaml\n', 'scripts/b.py': 'def (:\n' });
      const broken = await app.ok<ScriptRuntimeStatus>('scripts/runtime-status', { name: 'broken' });
      expect(broken.proposed).toEqual([{ module: 'yaml', distribution: 'PyYAML', files: ['scripts/a.py'] }]);
      expect(broken.proposed_error).toMatch(/^Python could not read scripts\/b\.py \(SyntaxError/);
    },
    60_000,
  );

  it('propose nothing for a skill that declares its packages or has no scripts', async () => {
    const app = open();
    await importSkill(app, 'declared', {
      'scripts/run.py': 'import six\n',
      'scripts/requirements.txt': 'six==1.16.0\n',
    });
    await importSkill(app, 'words', { 'references/notes.md': '# notes\n' });
    const declared = await app.ok<ScriptRuntimeStatus>('scripts/runtime-status', { name: 'declared' });
    expect(declared).toMatchObject({ has_scripts: true, has_requirements: true, proposed: null });
    const words = await app.ok<ScriptRuntimeStatus>('scripts/runtime-status', { name: 'words' });
    expect(words).toMatchObject({ has_scripts: false, runtime: 'pyodide', proposed: null });
  });

  it('accept and revoke the OS sandbox per skill, kept in the account folder', async () => {
    const app = open();
    await importSkill(app, 'office', { 'references/notes.md': '# notes\n' });
    const accepted = await app.ok<SetNativeRuntimeRes>('scripts/set-native-runtime', {
      name: 'office',
      accepted: true,
    });
    expect(accepted).toMatchObject({ skill: 'office', native_accepted: true, changed: true });
    expect(Date.parse(accepted.accepted_at!)).not.toBeNaN();
    expect(grants(app.home).skills.office).toEqual({ accepted_at: accepted.accepted_at, compiled: [] });
    // A new host (another window, the CLI) reads the same answer.
    const again = open(app.home);
    expect(
      (await again.ok<ScriptRuntimeStatus>('scripts/runtime-status', { name: 'office' })).native_accepted,
    ).toBe(true);

    const revoked = await app.ok<SetNativeRuntimeRes>('scripts/set-native-runtime', {
      name: 'office',
      accepted: false,
    });
    expect(revoked).toMatchObject({ native_accepted: false, accepted_at: null, changed: true });
    expect(grants(app.home).skills.office).toBeUndefined();
    const twice = await app.ok<SetNativeRuntimeRes>('scripts/set-native-runtime', {
      name: 'office',
      accepted: false,
    });
    expect(twice.changed).toBe(false);
  });

  it('are what the CLI’s native-runtime accept and revoke call', async () => {
    const app = open();
    await importSkill(app, 'office', { 'references/notes.md': '# notes\n' });
    const cli = (...args: string[]) =>
      runCli(['--home', app.home, '--json', 'skills', 'native-runtime', ...args]);
    const accepted = await cli('accept', 'office');
    expect(accepted.code).toBe(0);
    expect(accepted.json()).toEqual({
      skill: 'office',
      native_accepted: true,
      accepted_at: grants(app.home).skills.office!.accepted_at,
    });
    expect(
      (await app.ok<ScriptRuntimeStatus>('scripts/runtime-status', { name: 'office' })).native_accepted,
    ).toBe(true);
    expect((await cli('revoke', 'office')).json()).toEqual({
      skill: 'office',
      native_accepted: false,
      revoked: true,
    });
    expect((await cli('revoke', 'office')).json()).toMatchObject({ revoked: false });
    const unknown = await cli('accept', 'nobody');
    expect(unknown.code).not.toBe(0);
    expect(JSON.parse(unknown.stderr).error).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining('no skill named "nobody"'),
    });
  });

  it('refuse unknown skills and malformed requests', async () => {
    const app = open();
    for (const [channel, req] of [
      ['scripts/runtime-status', { name: 'nobody' }],
      ['scripts/set-native-runtime', { name: 'nobody', accepted: true }],
    ] as const) {
      const r = await app.call(channel, req);
      expect(r).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
      expect(!r.ok && r.error.message).toContain('no skill named "nobody"');
    }
    for (const [channel, req] of [
      ['scripts/runtime-status', { name: '' }],
      ['scripts/set-native-runtime', { name: 'x', accepted: 'yes' }],
      ['scripts/set-native-runtime', { name: 'x', accepted: true, extra: 1 }],
    ] as const) {
      expect(await app.call(channel, req)).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    }
    // Nothing was written for the refused calls.
    expect(() => grants(app.home)).toThrow();
  });

  it.skipIf(skipWithout(!pypi && 'no Python 3.11+ or PyPI not reachable', 'native install from imports'))(
    'install the confirmed proposal from PyPI: compiled code makes the runtime native, refused until accepted',
    async () => {
      const app = open();
      await importSkill(app, 'escaper', {
        'scripts/escape.py': 'import sys\nimport markupsafe\nprint(markupsafe.escape(sys.argv[1]))\n',
      });
      const before = await app.ok<ScriptRuntimeStatus>('scripts/runtime-status', { name: 'escaper' });
      const shown = before.proposed!.map((p) => p.distribution);
      expect(shown.map((d) => d.toLowerCase())).toEqual(['markupsafe']);

      const r = await app.ok<InstallPackagesRes>('scripts/install-packages', {
        name: 'escaper',
        from_imports: true,
        native: true,
        packages: shown,
      });
      expect(r).toMatchObject({ runtime: 'native', native_accepted: false });
      expect(r.runtime_reason).toBe(
        'its scripts need markupsafe, which has compiled code: they run in the OS sandbox',
      );
      const tasks = await app.ok<ListProgressRes>('progress/list', {});
      expect(tasks.tasks.find((t) => t.kind === 'python')).toMatchObject({
        label: 'Installing the packages of escaper',
        state: 'done',
      });

      const after = await app.ok<ScriptRuntimeStatus>('scripts/runtime-status', { name: 'escaper' });
      expect(after).toMatchObject({
        runtime: 'native',
        reason: r.runtime_reason,
        compiled: ['markupsafe'],
        native_accepted: false,
        proposed: null,
        installed: { from: 'imports', packages: [expect.objectContaining({ compiled: true })] },
      });
      expect(after.installed!.packages[0]!.name.toLowerCase()).toBe('markupsafe');

      const run = () =>
        app.call<{ stdout: string; exit_code: number }>('scripts/run', {
          name: 'escaper',
          script: 'scripts/escape.py',
          args: ['<b>'],
        });
      const refused = await run();
      expect(refused).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
      await app.ok('scripts/set-native-runtime', { name: 'escaper', accepted: true });
      expect(grants(app.home).skills.escaper?.compiled).toEqual(['markupsafe']);
      if (nativeSandboxSupport().ok) {
        const ran = await run();
        expect(ran.ok && ran.value.stdout.trim()).toBe('&lt;b&gt;');
      }
      await app.ok('scripts/set-native-runtime', { name: 'escaper', accepted: false });
      expect(await run()).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    },
    300_000,
  );
});
