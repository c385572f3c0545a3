// A real public Agent Skills folder with scripts (skill-creator, fixtures/README.md), imported:
// applying or running the skill executes none of its scripts; a scripted model reads the skill,
// learns its scripts, runs one with no arguments (argparse's usage error: exit code 2, as a result)
// and with arguments (exit code 0 and the files it wrote, downloadable afterwards).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload, Result } from '../contract/channels.js';
import { createHost, type Host } from '../host.js';
import { type LoopbackScriptInput, startLoopbackProvider } from '../llm/index.js';
import { ensureSourceTables, skillDigests, upsertRecord } from '../sources/records.js';
import { openStore } from '../store/stores.js';
import { minimalPdf, quietLogger, tempDir } from '../test-support/index.js';
import { invokeChannel } from '../transport/dispatch.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'skill-creator');
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function folderFiles(dir: string, prefix: string) {
  const out: Array<{ path: string; data_base64: string }> = [];
  const walk = (abs: string) => {
    for (const name of readdirSync(abs).sort()) {
      const p = join(abs, name);
      if (statSync(p).isDirectory()) walk(p);
      else
        out.push({ path: `${prefix}/${relative(dir, p)}`, data_base64: readFileSync(p).toString('base64') });
    }
  };
  walk(dir);
  return out;
}

function open(home: string) {
  const host: Host = createHost({ home, env: {}, mode: 'test', logger: quietLogger });
  cleanups.push(() => host.dispose());
  const call = async <T = Record<string, unknown>>(channel: string, req: unknown): Promise<Result<T>> =>
    (await invokeChannel(host.handlers, channel, req, { transport: 'in-process' }, quietLogger)) as Result<T>;
  const ok = async <T = Record<string, unknown>>(channel: string, req: unknown): Promise<T> => {
    const r = await call<T>(channel, req);
    if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
    return r.value;
  };
  return { host, ok, call };
}

const runScript = (args: Record<string, unknown>) => ({
  tool_calls: [{ name: 'run_script', arguments: { name: 'skill-creator', ...args } }],
});

describe('run_script', () => {
  it('runs a real skill’s script only when the model asks, with arguments; exit codes and files come back', async () => {
    const script: LoopbackScriptInput = [
      {
        tool_calls: [{ name: 'apply_skill', arguments: { name: 'skill-creator' } }],
        expect: { tools: ['run_script'] },
      },
      {
        tool_calls: [{ name: 'read_skill', arguments: { name: 'skill-creator' } }],
        expect: { tool_result_contains: 'scripts/aggregate_benchmark.py' },
      },
      {
        ...runScript({ script: 'scripts/aggregate_benchmark.py' }),
        expect: { tool_result_contains: 'run_script' },
      },
      {
        ...runScript({
          script: 'scripts/aggregate_benchmark.py',
          args: ['scripts', '--skill-name', 'demo', '-o', 'out/benchmark.json'],
        }),
        expect: { tool_result_contains: '"exit_code":2' },
      },
      { text: 'Wrote the benchmark.', expect: { tool_result_contains: 'out/benchmark.json' } },
    ];
    const provider = await startLoopbackProvider({ script });
    cleanups.push(() => provider.close());
    const app = open(tempDir());
    await app.ok('settings/set-provider', { provider: 'openai', base_url: provider.url });
    await app.ok('settings/set-key', { provider: 'openai', key: 'sk-test' });
    await app.ok('skills/import-files', { files: folderFiles(FIXTURE, 'skill-creator'), scope: 'account' });

    const skill = await app.ok<{ skill: { artifacts: Array<{ kind: string; name: string }> } }>(
      'skills/get',
      {
        name: 'skill-creator',
      },
    );
    const kinds = Object.fromEntries(skill.skill.artifacts.map((a) => [a.name, a.kind]));
    expect(kinds['scripts/aggregate_benchmark.py']).toBe('resource');
    expect(Object.values(kinds)).not.toContain('code_template');

    // Run skill executes nothing of the folder: the scripts are files.
    const ran = await app.ok<{ results: unknown[] }>('skills/run', { name: 'skill-creator' });
    expect(JSON.stringify(ran)).not.toMatch(/SANDBOX_FAILED|SystemExit/);

    const done = new Promise<EventPayload<'chat/turn-finished'>>((resolve) => {
      const off = app.host.events.subscribe('chat/turn-finished', (p) => {
        off();
        resolve(p);
      });
    });
    await app.ok('chat/send-message', { message: 'Aggregate the benchmark' });
    expect(await done).toMatchObject({ status: 'complete', text: 'Wrote the benchmark.' });

    const toolResults = provider.requests
      .map((r) => JSON.stringify(r.body))
      .slice(1)
      .map((b) => b);
    // apply_skill ran nothing and pointed at run_script.
    expect(toolResults[0]).toMatch(/no executable artifacts/);
    expect(toolResults[0]).toMatch(/run_script/);
    // No arguments: argparse's usage error, exit code 2, reaches the model as the script's result.
    const usage = JSON.parse(lastToolResult(provider.requests[3]!.body));
    expect(usage).toMatchObject({ exit_code: 2, stdout: '', files: [] });
    expect(usage.stderr).toMatch(/usage: aggregate_benchmark.py .*benchmark_dir/s);
    expect(usage.stderr).toMatch(/error: the following arguments are required: benchmark_dir/);
    expect(usage).not.toHaveProperty('error');
    // With arguments: exit 0, its output on stdout, the files it wrote listed.
    const good = JSON.parse(lastToolResult(provider.requests[4]!.body));
    expect(good).toMatchObject({ exit_code: 0, stderr: '' });
    expect(good.stdout).toMatch(/Generated: out\/benchmark.json/);
    expect(good.files.map((f: { path: string }) => f.path)).toEqual([
      'out/benchmark.json',
      'out/benchmark.md',
    ]);
    expect(good.files[0]).toMatchObject({ media_type: 'application/json' });

    const file = await app.ok<{ data_base64: string; media_type: string }>('scripts/read-output', {
      run_id: good.run_id,
      path: 'out/benchmark.json',
    });
    const benchmark = JSON.parse(Buffer.from(file.data_base64, 'base64').toString('utf8'));
    expect(benchmark.metadata.skill_name).toBe('demo');
  }, 120_000);

  it('the CLI channel runs a script and refuses unknown skills and scripts naming what there is', async () => {
    const app = open(tempDir());
    await app.ok('skills/import-files', { files: folderFiles(FIXTURE, 'skill-creator'), scope: 'account' });
    const r = await app.ok<{ exit_code: number; stdout: string }>('scripts/run', {
      name: 'skill-creator',
      script: 'scripts/quick_validate.py',
    });
    // quick_validate.py imports PyYAML, which the skill does not declare: the traceback, exit 1.
    expect(r).toMatchObject({ exit_code: 1, stdout: '' });
    expect((r as unknown as { stderr: string }).stderr).toMatch(
      /File "\/skill\/scripts\/quick_validate.py", line \d+[\s\S]*ModuleNotFoundError: No module named 'yaml'/,
    );
    const missing = await app.call('scripts/run', { name: 'skill-creator', script: 'scripts/nope.py' });
    expect(missing).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(!missing.ok && missing.error.message).toMatch(/its scripts: .*scripts\/aggregate_benchmark.py/);
    const noSkill = await app.call('scripts/run', { name: 'nope', script: 'a.py' });
    expect(noSkill).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  }, 60_000);
});

describe('run_script and the chat’s attachments', () => {
  it('gives the script the message’s text attachments read-only under inputs/', async () => {
    const script: LoopbackScriptInput = [
      {
        tool_calls: [
          {
            name: 'run_script',
            arguments: { name: 'line-counter', script: 'scripts/count.py', args: ['inputs/data.csv'] },
          },
        ],
      },
      { text: 'It has 3 lines.', expect: { tool_result_contains: '3 lines in inputs/data.csv' } },
    ];
    const provider = await startLoopbackProvider({ script });
    cleanups.push(() => provider.close());
    const app = open(tempDir());
    await app.ok('settings/set-provider', { provider: 'openai', base_url: provider.url });
    await app.ok('settings/set-key', { provider: 'openai', key: 'sk-test' });
    const files = {
      'line-counter/SKILL.md':
        '---\nname: line-counter\ndescription: Counts the lines of a file.\n---\nRun scripts/count.py FILE.\n',
      'line-counter/scripts/count.py':
        'import sys\npath = sys.argv[1]\nn = len(open(path).read().splitlines())\ntry:\n    open(path, "a").write("x")\nexcept OSError:\n    pass\nprint(f"{n} lines in {path}")\n',
    };
    await app.ok('skills/import-files', {
      files: Object.entries(files).map(([path, text]) => ({
        path,
        data_base64: Buffer.from(text).toString('base64'),
      })),
      scope: 'account',
    });
    const done = new Promise<EventPayload<'chat/turn-finished'>>((resolve) => {
      const off = app.host.events.subscribe('chat/turn-finished', (p) => {
        off();
        resolve(p);
      });
    });
    await app.ok('chat/send-message', {
      message: 'How many lines?',
      attachments: [{ name: 'data.csv', media_type: 'text/csv', text: 'a,b\n1,2\n3,4\n' }],
    });
    expect(await done).toMatchObject({ status: 'complete', text: 'It has 3 lines.' });
    const result = JSON.parse(lastToolResult(provider.requests[1]!.body));
    // Read, not changed (it is read-only), and not handed back as an output.
    expect(result).toMatchObject({ exit_code: 0, stdout: '3 lines in inputs/data.csv\n', files: [] });
  }, 120_000);
});

describe('run_script and files kept as themselves', () => {
  it('a PDF and a binary file attached in chat reach the script as their bytes; the model reads the PDF text', async () => {
    const pdf = minimalPdf();
    const binary = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 255, 1, 2, 3]);
    const script: LoopbackScriptInput = [
      {
        tool_calls: [
          {
            name: 'run_script',
            arguments: {
              name: 'byte-counter',
              script: 'scripts/bytes.py',
              args: ['inputs/form.pdf', 'inputs/book.xlsx'],
            },
          },
        ],
      },
      { text: 'Done.', expect: { tool_result_contains: `form.pdf ${pdf.length} %PDF-` } },
    ];
    const provider = await startLoopbackProvider({ script });
    cleanups.push(() => provider.close());
    const app = open(tempDir());
    await app.ok('settings/set-provider', { provider: 'openai', base_url: provider.url });
    await app.ok('settings/set-key', { provider: 'openai', key: 'sk-test' });
    const files = {
      'byte-counter/SKILL.md':
        '---\nname: byte-counter\ndescription: Counts the bytes of files.\n---\nRun scripts/bytes.py FILE...\n',
      'byte-counter/scripts/bytes.py':
        'import os, sys\nfor p in sys.argv[1:]:\n    raw = open(p, "rb").read()\n    print(os.path.basename(p), len(raw), raw[:5].decode("latin1"), raw[-3:].hex())\n',
    };
    await app.ok('skills/import-files', {
      files: Object.entries(files).map(([path, text]) => ({
        path,
        data_base64: Buffer.from(text).toString('base64'),
      })),
      scope: 'account',
    });
    // As the composer attaches them: the PDF's text read (and the PDF kept), the workbook kept.
    const read = await app.ok<{ text: string; file: string }>('attachments/read-pdf', {
      name: 'form.pdf',
      data: pdf.toString('base64'),
    });
    expect(read.file).toMatch(/^[0-9a-f]{64}$/);
    const kept = await app.ok<{ file: string; size: number }>('attachments/store-file', {
      name: 'book.xlsx',
      data: binary.toString('base64'),
    });
    expect(kept.size).toBe(binary.length);
    const done = new Promise<EventPayload<'chat/turn-finished'>>((resolve) => {
      const off = app.host.events.subscribe('chat/turn-finished', (p) => {
        off();
        resolve(p);
      });
    });
    await app.ok('chat/send-message', {
      message: 'Count the bytes.',
      attachments: [
        { name: 'form.pdf', media_type: 'application/pdf', text: read.text, file: read.file },
        {
          name: 'book.xlsx',
          media_type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
          file: kept.file,
        },
      ],
    });
    expect(await done).toMatchObject({ status: 'complete', text: 'Done.' });
    // The model was told of the workbook (no text to read) and how a script gets it.
    const sent = JSON.stringify(provider.requests[0]!.body);
    expect(sent).toContain('run_script gives it to a skill');
    expect(sent).toContain('Hello form');
    const result = JSON.parse(lastToolResult(provider.requests[1]!.body));
    expect(result.stdout).toBe(
      `form.pdf ${pdf.length} %PDF- ${pdf.subarray(-3).toString('hex')}\nbook.xlsx ${binary.length} ${binary.subarray(0, 5).toString('latin1')} ${binary.subarray(-3).toString('hex')}\n`,
    );

    // A file the store does not hold is refused before anything is stored.
    const missing = await app.call('chat/send-message', {
      message: 'again',
      attachments: [{ name: 'gone.bin', media_type: 'application/octet-stream', file: 'a'.repeat(64) }],
    });
    expect(missing).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
  }, 120_000);
});

describe('run_script and source pins', () => {
  it('a skill changed since it was accepted from its source runs no script where nobody can be asked', async () => {
    const home = tempDir();
    const app = open(home);
    await app.ok('skills/import-files', { files: folderFiles(FIXTURE, 'skill-creator'), scope: 'account' });
    const store = openStore('account', home)!;
    ensureSourceTables(store.db);
    store.db
      .prepare(
        "INSERT INTO skill_sources (id, kind, url, created_at) VALUES ('team', 'git', 'https://example.com/team.git', datetime('now'))",
      )
      .run();
    const skill = store.repo.getSkillByName('skill-creator')!;
    const { files, content_hash } = skillDigests(skill);
    upsertRecord(store.db, {
      source_id: 'team',
      name: 'skill-creator',
      revision: 'r1',
      upstream_hash: 'u1',
      // What was accepted had another aggregate_benchmark.py than the store holds now.
      files: files.map((f) =>
        f.path === 'scripts/aggregate_benchmark.py' ? { ...f, digest: `sha256:${'0'.repeat(64)}` } : f,
      ),
      content_hash,
      permissions: {} as never,
      scan: { findings: [] } as never,
      accepted_risk: false,
      installed_at: new Date().toISOString(),
    });
    store.close();
    const r = await app.ok<{ ok: boolean; result: Record<string, unknown> }>('skills/call-tool', {
      name: 'run_script',
      args: { name: 'skill-creator', script: 'scripts/aggregate_benchmark.py' },
    });
    expect(r).toMatchObject({ ok: false, result: { changed_since_accepted: true } });
    expect(String(r.result.error)).toMatch(
      /scripts\/aggregate_benchmark.py.*sources update team --skill skill-creator/,
    );
    // Nor does the model read its changed instructions, or an eval grade it.
    const read = await app.ok<{ ok: boolean; result: Record<string, unknown> }>('skills/call-tool', {
      name: 'read_skill',
      args: { name: 'skill-creator' },
    });
    expect(read).toMatchObject({ ok: false, result: { changed_since_accepted: true } });
    expect(JSON.stringify(read)).not.toContain('iteratively improving');
    await expect(app.ok('skills/eval', { name: 'skill-creator' })).rejects.toThrow(
      /FORBIDDEN.*sources update team --skill skill-creator/,
    );
  }, 60_000);
});

/** The last tool result in an OpenAI chat-completions request body. */
function lastToolResult(body: unknown): string {
  const messages = (body as { messages: Array<{ role: string; content: unknown }> }).messages;
  const m = messages.filter((x) => x.role === 'tool').at(-1)!;
  return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
}
