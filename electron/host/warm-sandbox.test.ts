import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../host.js';
import type { SandboxProcessHandle, SandboxSpawnSpec, SpawnSandboxProcess } from '../sandbox/index.js';
import { openStore } from '../store/index.js';
import { quietLogger, tempDir } from '../test-support/index.js';
import { TraceStore } from '../traces/index.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.dispose();
});

/** A spawner that records each start and hands back a process that stays silent until killed. */
function recordingSpawner() {
  const specs: SandboxSpawnSpec[] = [];
  let killed = 0;
  const spawn: SpawnSandboxProcess = (spec) => {
    specs.push(spec);
    const exits: Array<(code: number | null, signal: string | null) => void> = [];
    const handle: SandboxProcessHandle = {
      pid: undefined,
      isolation: { method: 'none', blocks_tcp: false, blocks_unix: false, detail: 'test' },
      write: () => {},
      onData: () => {},
      onExit: (cb) => exits.push(cb),
      kill: () => {
        killed++;
        for (const cb of exits.splice(0)) cb(null, 'SIGKILL');
      },
      stderrTail: () => '',
    };
    return handle;
  };
  return { spawn, specs, killed: () => killed };
}

/** A home whose account store saw a Python run `daysAgo` days ago (the background start is for them). */
function homeThatRanPython(daysAgo = 1): string {
  const home = tempDir();
  const store = openStore('account', home)!;
  const when = new Date(Date.now() - daysAgo * 86_400_000);
  new TraceStore(store.db, () => when).start({
    session_id: 's',
    skill_id: 'k',
    artifact_id: 'a',
    artifact_kind: 'code_template',
  });
  store.db.close();
  return home;
}

/** A host on `home` whose sandbox starts go to `spawner`, kept for disposal after the test. */
function hostWith(
  home: string,
  spawner: ReturnType<typeof recordingSpawner>,
  warmSandboxAfterMs: number,
): Host {
  const host = createHost({
    home,
    env: {},
    mode: 'test',
    logger: quietLogger,
    spawnSandbox: spawner.spawn,
    warmSandboxAfterMs,
  });
  hosts.push(host);
  return host;
}

describe('the sandbox started in the background', () => {
  it('starts nothing for someone who has not run Python in the last 30 days (no 240 MB for nothing)', async () => {
    for (const home of [tempDir(), homeThatRanPython(31)]) {
      const rec = recordingSpawner();
      hostWith(home, rec, 0);
      // The same timer that would start it has run: the control host below shows it would have.
      const control = recordingSpawner();
      hostWith(homeThatRanPython(), control, 0);
      await expect.poll(() => control.specs.length).toBe(1);
      expect(rec.specs).toHaveLength(0);
    }
  });

  it('starts one sandbox process after the delay, without any run asking for it, and stops it on dispose', async () => {
    const rec = recordingSpawner();
    hostWith(homeThatRanPython(), rec, 0);
    await expect.poll(() => rec.specs.length).toBe(1);
    expect(rec.specs[0]!.entry).toMatch(/runtime[\\/]process\.mjs$/);
    await hosts.pop()!.dispose();
    expect(rec.killed()).toBe(1);
  });

  it('a host disposed before the delay starts nothing', async () => {
    const rec = recordingSpawner();
    await hostWith(homeThatRanPython(), rec, 20).dispose();
    // A second host with the same delay does start one: the first one's timer had its chance.
    const other = recordingSpawner();
    hostWith(homeThatRanPython(), other, 20);
    await expect.poll(() => other.specs.length).toBe(1);
    expect(rec.specs).toHaveLength(0);
  });

  it('starts the sandbox while a draft is typed that would activate a Python skill, for anyone, and not for other drafts', async () => {
    const ctx = { transport: 'in-process' as const };
    const pkg = (
      name: string,
      description: string,
      kind: 'prompt_template' | 'code_template',
      content: string,
    ) => ({
      name,
      description,
      version: '1.0.0',
      artifacts: [{ kind, name: 'Main', content }],
    });
    // No Python run on record and a timer that would not fire during the test: only a draft can start it.
    const withSkills = async (rec: ReturnType<typeof recordingSpawner>) => {
      const h = hostWith(tempDir(), rec, 60_000).handlers;
      await h['skills/import-package'](
        {
          package: pkg(
            'Invoice Totals',
            'Add up the amounts of an invoice table.',
            'code_template',
            'submit(1)',
          ),
        },
        ctx,
      );
      await h['skills/import-package'](
        {
          package: pkg(
            'Haiku Writer',
            'Write a haiku about a topic.',
            'prompt_template',
            'A haiku on {{ t }}',
          ),
        },
        ctx,
      );
      return h;
    };
    const poet = recordingSpawner();
    const accountant = recordingSpawner();
    const [p, a] = [await withSkills(poet), await withSkills(accountant)];
    const haiku = await p['skills/match']({ message: 'write a haiku about autumn' }, ctx);
    expect(haiku.matches[0]?.name).toBe('Haiku Writer');
    const invoice = await a['skills/match']({ message: 'add up the invoice amounts' }, ctx);
    expect(invoice.matches[0]?.name).toBe('Invoice Totals');
    await expect.poll(() => accountant.specs.length).toBe(1);
    // The same start had its chance for the poet's draft, which activates no Python skill.
    expect(poet.specs).toHaveLength(0);
    // Every later keystroke finds it started: still one process.
    await a['skills/match']({ message: 'add up the invoice amounts please' }, ctx);
    expect(accountant.specs).toHaveLength(1);
  });

  it('starts the sandbox when a Python skill is opened (the Composer), not for another skill', async () => {
    const ctx = { transport: 'in-process' as const };
    const rec = recordingSpawner();
    // No Python run on record and a timer that would not fire during the test: only opening can start it.
    const h = hostWith(tempDir(), rec, 60_000).handlers;
    await h['skills/get']({ name: 'Summarize' }, ctx);
    expect(rec.specs).toHaveLength(0);
    await h['skills/get']({ name: 'CSV Statistics' }, ctx);
    await expect.poll(() => rec.specs.length).toBe(1);
  });
});
