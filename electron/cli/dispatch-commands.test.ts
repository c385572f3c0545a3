import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startLoopbackProvider } from '../llm/index.js';
import { runCli, tempDir } from '../test-support/index.js';

/** A loopback provider with this test's own script, closed after the test. */
async function providerFor(script: Parameters<typeof startLoopbackProvider>[0]['script']) {
  const provider = await startLoopbackProvider({ script });
  onTestFinished(() => provider.close());
  return provider;
}

describe('skilldesk render', () => {
  it('renders a file with a JSON context, and exits 2 on template errors', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 't.j2'), 'Hi {{ name }}{% for t in tags %} #{{ t }}{% endfor %}');
    const ok = await runCli([
      'render',
      join(dir, 't.j2'),
      '--context',
      '{"name": "Ann", "tags": ["a", "b"]}',
    ]);
    expect(ok).toMatchObject({ code: 0, stdout: 'Hi Ann #a #b\n' });
    const missing = await runCli(['render', join(dir, 't.j2'), '--context', '{"tags": []}']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/"name" is not defined at line 1/);
    writeFileSync(join(dir, 'bad.j2'), 'ok\n{% if %}');
    const bad = await runCli(['--json', 'render', join(dir, 'bad.j2'), '--check']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr).error).toMatchObject({ code: 'TEMPLATE_SYNTAX', details: { line: 2 } });
    expect((await runCli(['render', join(dir, 't.j2'), '--context', '[1]'])).code).toBe(2);
  });
});

describe('skilldesk run-skill and traces', () => {
  it('runs a seed skill against a provider, prints outputs and trace ids, and lists the traces', async () => {
    const provider = await providerFor([
      {
        text: '{"action_items": [{"task": "Fix login", "owner": "Sam", "due": "Friday"}]}',
        usage: { input_tokens: 50, output_tokens: 20 },
      },
      { text: '```json\n{}\n```' },
    ]);
    const home = tempDir();
    const env = { OPENAI_API_KEY: 'sk-test' };
    const llm = ['--provider', 'openai', '--model', 'gpt-4.1-mini', '--base-url', provider.url];
    const r = await runCli(
      [
        '--home',
        home,
        '--json',
        'run-skill',
        'Meeting Action Items',
        '--context',
        '{"notes": "Sam fixes login by Friday"}',
        '--session',
        'sess-1',
        ...llm,
      ],
      env,
    );
    expect(r.code).toBe(0);
    const out = r.json();
    expect(out).toMatchObject({
      skill: 'Meeting Action Items',
      scope: 'account',
      session_id: 'sess-1',
      ok: true,
    });
    const extract = out.results[0];
    expect(extract).toMatchObject({
      artifact: 'Extract',
      kind: 'prompt_template',
      ok: true,
      input_tokens: 50,
      output_tokens: 20,
    });
    expect(extract.assertions.every((a: { passed: boolean }) => a.passed)).toBe(true);
    expect(provider.requests[0]!.body).toMatchObject({ model: 'gpt-4.1-mini' });
    expect(JSON.stringify(provider.requests[0]!.body)).toContain('Sam fixes login by Friday');
    expect(JSON.stringify(provider.requests[0]!.headers)).not.toContain('sk-test');

    // The second reply has code fences: the hard pattern assertion fails and the run exits 1.
    const failed = await runCli(
      [
        '--home',
        home,
        'run-skill',
        'Meeting Action Items',
        '--artifact',
        'Extract',
        '--context',
        '{"notes": "x"}',
        '--session',
        'sess-2',
        ...llm,
      ],
      env,
    );
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/✗ hard/);

    const traces = (await runCli(['--home', home, '--json', 'traces', '--session', 'sess-1'])).json().traces;
    expect(traces.map((t: { artifact_kind: string }) => t.artifact_kind).sort()).toEqual([
      'example',
      'prompt_template',
    ]);
    expect(
      traces.find((t: { artifact_kind: string }) => t.artifact_kind === 'prompt_template'),
    ).toMatchObject({
      id: extract.trace_id,
      skill_name: 'Meeting Action Items',
      input_tokens: 50,
      assertions_run: 2,
      assertions_passed: 2,
    });
    const bySkill = (
      await runCli(['--home', home, '--json', 'traces', '--skill', 'meeting action items'])
    ).json().traces;
    expect(bySkill).toHaveLength(3);

    const jsonlFile = join(tempDir(), 'traces.jsonl');
    const exported = await runCli([
      '--home',
      home,
      '--json',
      'traces',
      'export',
      '--session',
      'sess-1',
      '--out',
      jsonlFile,
    ]);
    expect(exported.json()).toEqual({ file: jsonlFile, count: 2 });
    const lines = readFileSync(jsonlFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.artifact_kind).sort()).toEqual(['example', 'prompt_template']);
    expect(lines.find((l) => l.artifact_kind === 'prompt_template')).toMatchObject({
      trace_id: extract.trace_id,
      skill: 'Meeting Action Items',
      status: 'ok',
      session_id: 'sess-1',
      input_tokens: 50,
    });
    expect(lines.every((l) => typeof l.input === 'string' && typeof l.output === 'string')).toBe(true);
    const stdout = await runCli(['--home', home, 'traces', 'export', '--skill', 'Meeting Action Items']);
    expect(stdout.stdout.trim().split('\n')).toHaveLength(3);
    const future = await runCli(['--home', home, 'traces', 'export', '--since', '2999-01-01']);
    expect(future).toMatchObject({ code: 0, stdout: '' });
    expect((await runCli(['--home', home, 'traces', 'export', '--status', 'fine'])).code).toBe(2);
    expect((await runCli(['--home', home, 'traces', 'export', '--since', 'yesterday'])).code).toBe(2);
  });

  it('exits 1 with a clear message when no model is configured, and 2 on a bad --context', async () => {
    const home = tempDir();
    const r = await runCli([
      '--home',
      home,
      'run-skill',
      'Translate',
      '--artifact',
      'Translate Prompt',
      '--context',
      '{"text": "hi", "target_language": "German"}',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/no model is configured/);
    expect((await runCli(['--home', home, 'run-skill', 'Translate', '--context', 'nope'])).code).toBe(2);
    expect((await runCli(['--home', home, 'run-skill', 'No Such'])).code).toBe(1);
  });
});
