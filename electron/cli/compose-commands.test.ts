// `skilldesk compose` against the loopback provider: a first package that fails its dry run is
// repaired (rounds on stderr), refined, saved; a workspace's own "Composer Agent" prompts win.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startLoopbackProvider } from '../llm/index.js';
import { runCli, tempDir } from '../test-support/index.js';

async function providerFor(script: Parameters<typeof startLoopbackProvider>[0]['script']) {
  const provider = await startLoopbackProvider({ script });
  onTestFinished(() => provider.close());
  return provider;
}

const answer = (template: string, version = '1.0.0', extra: unknown[] = []) =>
  JSON.stringify({
    package: {
      name: 'Timeline Checker',
      description: "Checks a story's timeline for contradictions between dated events.",
      version,
      source: 'user',
      trigger_phrases: ['check the timeline'],
      artifacts: [{ kind: 'prompt_template', name: 'Check', ordinal: 0, content: template }, ...extra],
    },
    evals: [
      { id: 1, prompt: 'Ann was born in 1990. In 1985 Ann went to school.', assertions: ['Finds it'] },
      { id: 2, prompt: 'Bo left on Monday and arrived on Tuesday.' },
      { id: 3, prompt: 'check the timeline of chapter 2', should_trigger: true },
    ],
  });

describe('skilldesk compose', () => {
  it('repairs, refines and saves; prints the package and the rounds on stderr', async () => {
    const provider = await providerFor([
      { text: answer('Check {{ story }}') },
      { text: answer('Check this story:\n{{ input }}'), expect: { last_user_contains: 'story' } },
      {
        text: answer('Check this story and reply in JSON:\n{{ input }}', '1.1.0'),
        expect: { last_user_contains: 'reply in JSON' },
      },
    ]);
    const home = tempDir();
    const llm = ['--provider', 'openai', '--model', 'gpt-4.1-mini', '--base-url', provider.url];
    const r = await runCli(
      ['--home', home, 'compose', 'a timeline checker', '--refine', 'reply in JSON', '--save', ...llm],
      { OPENAI_API_KEY: 'x' },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('create round 1/4: 2 problems');
    expect(r.stderr).toContain('[dry_run] Check (eval 1)');
    expect(r.stderr).toContain('create round 2/4: valid');
    expect(r.stderr).toContain('refine 1: changed Check');
    expect(r.stderr).toContain('saved "Timeline Checker" 1.1.0 to the account store (created)');
    expect(JSON.parse(r.stdout).version).toBe('1.1.0');
    const shown = await runCli(['--home', home, '--json', 'skills', 'show', 'Timeline Checker']);
    const artifacts = shown.json().skill.artifacts.map((a: { name: string }) => a.name);
    expect(artifacts).toEqual(['Check', 'evals/evals.json']);
  });

  it('exits 1 and saves nothing when the rounds run out; --json reports each round', async () => {
    const provider = await providerFor([{ text: 'no JSON here' }, { text: answer('{% if %}') }]);
    const home = tempDir();
    const r = await runCli(
      [
        '--home',
        home,
        '--json',
        'compose',
        'x',
        '--max-rounds',
        '1',
        '--save',
        ...['--provider', 'openai', '--model', 'gpt-4.1-mini', '--base-url', provider.url],
      ],
      { OPENAI_API_KEY: 'x' },
    );
    expect(r.code).toBe(1);
    const out = r.json();
    expect(out.ok).toBe(false);
    expect(out.saved).toBeNull();
    expect(out.steps[0].rounds.map((x: { issues: Array<{ stage: string }> }) => x.issues[0]!.stage)).toEqual([
      'json',
      'template',
    ]);
    const list = await runCli(['--home', home, '--json', 'skills', 'list']);
    expect(list.json().skills.map((s: { name: string }) => s.name)).not.toContain('Timeline Checker');
  });

  it('uses the workspace\'s own "Composer Agent" prompts', async () => {
    const provider = await providerFor([
      {
        text: answer('Check this story:\n{{ input }}'),
        expect: { last_user_contains: 'HOUSE STYLE: a timeline' },
      },
    ]);
    const ws = tempDir();
    const home = tempDir();
    const custom = join(ws, 'agent.json');
    const shown = await runCli(['--home', home, '--json', 'skills', 'show', 'Composer Agent']);
    const pkg = shown.json().skill;
    const mine = {
      name: pkg.name,
      description: pkg.description,
      version: '1.0.0',
      source: 'user',
      artifacts: pkg.artifacts.map((a: { kind: string; name: string; content: string }) => ({
        kind: a.kind,
        name: a.name,
        content: a.name === 'Create' ? 'HOUSE STYLE: {{ description }}' : a.content,
      })),
    };
    writeFileSync(custom, JSON.stringify(mine));
    expect((await runCli(['--home', home, '--workspace', ws, 'skills', 'import', custom])).code).toBe(0);
    const r = await runCli(
      [
        '--home',
        home,
        '--workspace',
        ws,
        'compose',
        'a timeline',
        ...['--provider', 'openai', '--model', 'gpt-4.1-mini', '--base-url', provider.url],
      ],
      { OPENAI_API_KEY: 'x' },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(provider.requests[0]!.expectation_error).toBeUndefined();
  });

  it('needs a model', async () => {
    const r = await runCli(['--home', tempDir(), 'compose', 'x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/needs a model/);
  });
});
