// `skilldesk providers …` against two loopback servers: add (key from an environment variable),
// list, test (reads /models, no completion), default, remove; an old one-provider settings file
// listed as one provider; and the usual flags (`--provider --base-url`) still chatting.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type LoopbackProvider, startLoopbackProvider } from '../llm/index.js';
import { runCli, tempDir } from '../test-support/index.js';

const servers: LoopbackProvider[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const json = (r: { stdout: string }) => JSON.parse(r.stdout.trim().split('\n').at(-1)!);

describe('skilldesk providers', () => {
  it('adds, lists, tests, switches the default and removes providers', async () => {
    const a = await startLoopbackProvider({ script: { turns: [], api_key: 'sk-a', models: ['a-1', 'a-2'] } });
    const b = await startLoopbackProvider({ script: { turns: [], models: ['b-1'] } });
    servers.push(a, b);
    const home = tempDir();
    const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      runCli(['--home', home, '--json', ...args], env);

    expect(json(await cli(['providers', 'list']))).toEqual({ default_provider: null, providers: [] });
    const added = await cli(
      [
        'providers',
        'add',
        'openai-compatible',
        '--label',
        'A',
        '--model',
        'a-1',
        '--base-url',
        a.url,
        '--key-env',
        'MY_A_KEY',
      ],
      { MY_A_KEY: 'sk-a' },
    );
    expect(added.code, added.stderr).toBe(0);
    expect(json(added)).toMatchObject({
      id: 'openai-compatible',
      is_default: true,
      has_key: true,
      key_source: 'file',
    });
    expect(readFileSync(join(home, 'settings.json'), 'utf8')).not.toContain('sk-a');
    const second = await cli(['providers', 'add', 'openai-compatible', '--id', 'bee', '--base-url', b.url]);
    expect(json(second)).toMatchObject({ id: 'bee', is_default: false, has_key: false });

    const test = await cli(['providers', 'test']);
    expect(test.code).toBe(0);
    expect(json(test)).toMatchObject({
      ok: true,
      provider: 'openai-compatible',
      model_count: 2,
      model_listed: true,
    });
    expect(a.requests.map((r) => r.kind)).toEqual(['models']);
    const list = json(await cli(['providers', 'list']));
    expect(list.providers.map((p: { id: string; models: string[] | null }) => [p.id, p.models])).toEqual([
      ['openai-compatible', ['a-1', 'a-2']],
      // Saved without a model, bee's list was read at once (its first model is what chats use).
      ['bee', ['b-1']],
    ]);

    expect(json(await cli(['providers', 'default', 'bee', '--model', 'b-1']))).toMatchObject({
      default_provider: 'bee',
    });
    const human = await runCli(['--home', home, 'providers', 'list']);
    expect(human.stdout).toMatch(/^\* bee .*b-1/m);

    expect((await cli(['providers', 'remove', 'openai-compatible'])).code).toBe(0);
    const gone = await cli(['providers', 'test', 'openai-compatible']);
    expect(gone.code).toBe(1);
    expect(json(gone)).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    const missing = await cli(['providers', 'remove', 'nope']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stderr.trim().split('\n').at(-1)!).error.message).toMatch(
      /No provider "nope" is set up/,
    );
  });

  it('refuses bad input with exit 2 and says what to do', async () => {
    const home = tempDir();
    const r1 = await runCli(['--home', home, 'providers', 'add', 'skynet']);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toMatch(/use one of .*openai-compatible/);
    const r2 = await runCli(['--home', home, 'providers', 'add', 'openai', '--key-env', 'UNSET_VAR']);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/UNSET_VAR is not set/);
    const r3 = await runCli(['--home', home, 'providers', 'add', 'openai-compatible']);
    expect(r3.code).toBe(2);
    expect(r3.stderr).toMatch(/base_url: openai-compatible needs a base URL/);
  });

  it('lists an old one-provider settings file as its one provider, and the CLI flags still chat', async () => {
    const server = await startLoopbackProvider({ script: [{ text: 'flags still work' }] });
    servers.push(server);
    const home = tempDir();
    writeFileSync(
      join(home, 'settings.json'),
      JSON.stringify({
        version: 1,
        chat: { provider: 'openai-compatible', model: 'old', base_url: server.url },
      }),
    );
    expect(json(await runCli(['--home', home, '--json', 'providers', 'list']))).toMatchObject({
      default_provider: 'openai-compatible',
      providers: [{ id: 'openai-compatible', model: 'old', base_url: server.url }],
    });
    const r = await runCli([
      '--home',
      home,
      'chat',
      'hello',
      '--provider',
      'openai-compatible',
      '--base-url',
      server.url,
      '--model',
      'flag-model',
    ]);
    expect(r.stdout + r.stderr).toContain('flags still work');
    expect(server.requests.at(-1)?.body).toMatchObject({ model: 'flag-model' });
  });

  it('chat and run-skill without --provider use the default provider set up with providers', async () => {
    const a = await startLoopbackProvider({
      script: { turns: [{ text: 'from A' }, { text: 'A again' }], api_key: 'sk-a', models: ['a-1'] },
    });
    const b = await startLoopbackProvider({
      script: { turns: [{ text: 'Hello from B' }], models: ['b-1'] },
    });
    servers.push(a, b);
    const home = tempDir();
    const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(['--home', home, ...args], env);
    const add = await cli(
      [
        'providers',
        'add',
        'openai-compatible',
        '--id',
        'aa',
        '--model',
        'a-1',
        '--base-url',
        a.url,
        '--key-env',
        'K',
      ],
      { K: 'sk-a' },
    );
    expect(add.code, add.stderr).toBe(0);
    expect(
      (
        await cli([
          'providers',
          'add',
          'openai-compatible',
          '--id',
          'bb',
          '--model',
          'b-1',
          '--base-url',
          b.url,
        ])
      ).code,
    ).toBe(0);

    const first = await cli(['--json', 'chat', 'hello']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('from A');
    expect(a.requests.at(-1)?.body).toMatchObject({ model: 'a-1' });
    const session = JSON.parse(first.stdout.split('\n')[0]!).session_id as string;

    const again = await cli(['chat', 'and again', '--session', session]);
    expect(again.stdout + again.stderr).toContain('A again');
    // The default moves to B: the next run uses B.
    expect((await cli(['providers', 'default', 'bb'])).code).toBe(0);
    const run = await cli(['run-skill', 'Summarize', '--context', '{"text": "The team ships on Friday."}']);
    expect(run.code, run.stderr).toBe(0);
    // Named by the provider's label, never the internal id.
    expect(run.stdout).toContain('OpenAI-compatible · b-1');
    expect(run.stdout).toContain('Hello from B');
    expect(b.requests.at(-1)?.body).toMatchObject({ model: 'b-1' });
  });
});
