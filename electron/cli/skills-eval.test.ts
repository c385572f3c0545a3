// `skilldesk skills eval` against the scripted loopback model: output evals are chat turns with the
// skill's instructions in the request (and, with --baseline, turns without any trace of the skill),
// graded by the judge model; results land as skill-creator's grading.json and benchmark.json; evals
// without checks are refused; without a model the output evals are "not graded" (exit 3).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type LoopbackProvider, startLoopbackProvider } from '../llm/index.js';
import { stats } from '../skills/index.js';
import { runCli, tempDir } from '../test-support/index.js';

/** skill-creator's aggregation script (the skill-creator fixture of the tools' tests, Apache-2.0), run when Python is here. */
const AGGREGATE = fileURLToPath(
  new URL('../tools/fixtures/skill-creator/scripts/aggregate_benchmark.py', import.meta.url),
);
const python = ['python3', 'python'].find((p) => spawnSync(p, ['--version']).status === 0);

const INSTRUCTIONS =
  'Write in the house style. Sign off every reply with the code word ZEBRA-4411. The brand colour is #141413.';

/** An Agent Skills folder with the given evals; returns its path. */
function skillFolder(evals: unknown): string {
  const dir = join(tempDir(), 'house-style');
  mkdirSync(join(dir, 'evals'), { recursive: true });
  writeFileSync(
    join(dir, 'SKILL.md'),
    `---\nname: house-style\ndescription: Writes short product copy in the company's house style.\n---\n\n${INSTRUCTIONS}\n`,
  );
  writeFileSync(join(dir, 'evals', 'evals.json'), JSON.stringify(evals));
  return dir;
}

async function imported(evals: unknown): Promise<string> {
  const home = tempDir();
  const r = await runCli(['--home', home, 'skills', 'import', skillFolder(evals)]);
  expect(r.code, r.stderr).toBe(0);
  return home;
}

async function provider(turns: unknown[]): Promise<LoopbackProvider> {
  const p = await startLoopbackProvider({ script: turns as never });
  onTestFinished(() => p.close());
  return p;
}

const llmFlags = (p: LoopbackProvider) => [
  '--provider',
  'openai-compatible',
  '--base-url',
  p.url,
  '--model',
  'loopback-gpt',
];

/** Every text a request sent the model: system prompt, messages (tool results included). */
function requestText(body: unknown): string {
  const b = body as { messages?: Array<{ role: string; content: unknown }> };
  return (b.messages ?? []).map((m) => `${m.role}: ${JSON.stringify(m.content)}`).join('\n');
}

const EVALS = {
  skill_name: 'house-style',
  evals: [
    {
      id: 1,
      name: 'signs off',
      prompt: 'Write a one-line welcome for new users.',
      expected_output: 'A welcome line signed with the code word',
      expectations: ['The reply ends with the code word ZEBRA-4411'],
    },
    {
      id: 2,
      prompt: 'Describe our look in five words.',
      // The instructions contain it; only a reply that says it passes.
      assertions: [{ type: 'contains', value: '#141413' }],
    },
  ],
};

describe('skilldesk skills eval', () => {
  it('runs each prompt through the model with the skill and without it, grades, writes grading.json and benchmark.json', async () => {
    const home = await imported(EVALS);
    const prompt1 = EVALS.evals[0]!.prompt;
    const p = await provider([
      // Eval 1 with the skill: the prompt and, as the read_skill result, the skill's instructions.
      {
        text: 'Welcome aboard, glad you are here. ZEBRA-4411',
        usage: { input_tokens: 300, output_tokens: 12 },
        expect: { last_user_contains: prompt1, tool_result_contains: 'ZEBRA-4411' },
      },
      {
        text: 'PASS\nThe reply ends with ZEBRA-4411.',
        expect: { last_user_contains: 'Statement: The reply ends with the code word ZEBRA-4411' },
      },
      // Eval 1 without the skill.
      {
        text: 'Welcome to the app!',
        usage: { input_tokens: 100, output_tokens: 6 },
        expect: { last_user_contains: prompt1 },
      },
      { text: 'FAIL\nThere is no code word.', expect: { last_user_contains: 'Welcome to the app!' } },
      // Eval 2: no statement to judge, so one turn per configuration.
      { text: 'Calm, dark, precise, warm, quiet.', expect: { tool_result_contains: '#141413' } },
      { text: 'Bright and friendly.' },
    ]);
    const out = join(tempDir(), 'results');
    const r = await runCli([
      '--home',
      home,
      '--json',
      'skills',
      'eval',
      'house-style',
      '--baseline',
      '--out',
      out,
      ...llmFlags(p),
    ]);
    expect(p.requests.map((q) => q.expectation_error)).toEqual(Array(6).fill(undefined));
    // 1 of 2 passed: below the 0.8 threshold.
    expect(r.code, r.stderr).toBe(1);
    const res = r.json();
    expect(res).toMatchObject({
      total: 2,
      passed: 1,
      pass_rate: 0.5,
      ok: false,
      not_graded: 0,
      runs_per_configuration: 1,
      baseline: { total: 2, passed: 0, pass_rate: 0 },
      model: 'openai-compatible:loopback-gpt',
    });
    expect(res.results[1].reason).toContain('does not contain "#141413"');

    // The turn with the skill carried its instructions; the baseline's turn had no trace of it.
    const [withSkill, , without] = p.requests;
    expect(requestText(withSkill!.body)).toContain(INSTRUCTIONS);
    expect(requestText(withSkill!.body)).toContain('- house-style:');
    expect(requestText(without!.body)).toContain(prompt1);
    expect(requestText(without!.body)).not.toContain('ZEBRA-4411');
    expect(requestText(without!.body)).not.toContain('house-style');
    // Both are chat turns: the built-in tools are offered.
    const tools = (q: typeof withSkill) =>
      ((q!.body as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map(
        (t) => t.function.name,
      );
    expect(tools(withSkill)).toContain('read_skill');
    expect(tools(without)).toContain('search_skills');

    // skill-creator's files, in its layout and with its field names.
    const iter = join(out, 'iteration-1');
    expect(res.saved_to).toBe(iter);
    const read = (f: string) => JSON.parse(readFileSync(join(iter, f), 'utf8'));
    expect(read('eval-1-signs-off/eval_metadata.json')).toEqual({
      eval_id: 1,
      eval_name: 'signs off',
      prompt: prompt1,
      assertions: ['The reply ends with the code word ZEBRA-4411'],
    });
    const graded = read('eval-1-signs-off/with_skill/run-1/grading.json');
    expect(graded.expectations).toEqual([
      {
        text: 'The reply ends with the code word ZEBRA-4411',
        passed: true,
        evidence: 'The reply ends with ZEBRA-4411.',
      },
    ]);
    expect(graded.summary).toEqual({ passed: 1, failed: 0, total: 1, pass_rate: 1 });
    expect(graded.timing.total_duration_seconds).toBeGreaterThanOrEqual(0);
    expect(read('eval-1-signs-off/without_skill/run-1/grading.json').expectations[0]).toMatchObject({
      passed: false,
      evidence: 'There is no code word.',
    });
    expect(read('eval-1-signs-off/with_skill/run-1/timing.json').total_tokens).toBe(312);
    expect(readFileSync(join(iter, 'eval-1-signs-off/with_skill/run-1/outputs/reply.md'), 'utf8')).toBe(
      'Welcome aboard, glad you are here. ZEBRA-4411\n',
    );
    const bench = read('benchmark.json');
    expect(bench.metadata).toMatchObject({
      skill_name: 'house-style',
      executor_model: 'openai-compatible:loopback-gpt',
      evals_run: [1, 2],
      runs_per_configuration: 1,
    });
    expect(
      bench.runs.map((x: { eval_id: number; configuration: string }) => [x.eval_id, x.configuration]),
    ).toEqual([
      [1, 'with_skill'],
      [2, 'with_skill'],
      [1, 'without_skill'],
      [2, 'without_skill'],
    ]);
    expect(bench.runs[0].result).toMatchObject({ pass_rate: 1, passed: 1, failed: 0, total: 1, tokens: 312 });
    expect(bench.run_summary.with_skill.pass_rate).toEqual({
      mean: 0.5,
      stddev: Math.round(Math.SQRT1_2 * 1e4) / 1e4,
      min: 0,
      max: 1,
    });
    expect(bench.run_summary.without_skill.pass_rate).toEqual({ mean: 0, stddev: 0, min: 0, max: 0 });
    expect(bench.run_summary.delta.pass_rate).toBe('+0.50');
    expect(readFileSync(join(iter, 'benchmark.md'), 'utf8')).toContain(
      '| Pass Rate | 50% ± 71% | 0% ± 0% | +0.50 |',
    );

    // skill-creator's own aggregate script reads the folder to the same pass rates and times.
    if (python) {
      const theirs = join(tempDir(), 'benchmark.json');
      const ran = spawnSync(python, [AGGREGATE, iter, '--skill-name', 'house-style', '-o', theirs], {
        encoding: 'utf8',
      });
      expect(ran.status, ran.stderr).toBe(0);
      const summary = JSON.parse(readFileSync(theirs, 'utf8')).run_summary;
      for (const c of ['with_skill', 'without_skill']) {
        expect(summary[c].pass_rate).toEqual(bench.run_summary[c].pass_rate);
        expect(summary[c].time_seconds).toEqual(bench.run_summary[c].time_seconds);
      }
      expect(summary.delta.pass_rate).toBe(bench.run_summary.delta.pass_rate);
    }

    // A second run is the next iteration; earlier ones are kept.
    const p2 = await provider([
      { text: 'Hi! ZEBRA-4411' },
      { text: 'PASS\nok' },
      { text: 'Colour #141413, calm.' },
    ]);
    const again = await runCli([
      '--home',
      home,
      'skills',
      'eval',
      'house-style',
      '--only',
      'output',
      '--out',
      out,
      ...llmFlags(p2),
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('2/2 passed (100%');
    expect(again.stdout).toContain(join(out, 'iteration-2'));
    expect(existsSync(join(out, 'iteration-1', 'benchmark.json'))).toBe(true);
  }, 60_000);

  it("sends the skill's instructions with the prompt over the Anthropic wire format too", async () => {
    const home = await imported({
      evals: [{ id: 1, prompt: 'Say hello.', assertions: [{ type: 'contains', value: 'ZEBRA-4411' }] }],
    });
    const p = await provider([
      {
        text: 'Hello! ZEBRA-4411',
        expect: { format: 'anthropic', tool_result_contains: INSTRUCTIONS },
      },
    ]);
    const r = await runCli(
      [
        '--home',
        home,
        'skills',
        'eval',
        'house-style',
        '--no-save',
        '--provider',
        'anthropic',
        '--model',
        'claude-sonnet-4-5',
        '--base-url',
        p.url,
      ],
      { ANTHROPIC_API_KEY: 'sk-test' },
    );
    expect(p.requests.map((q) => q.expectation_error)).toEqual([undefined]);
    // The prompt is the first user message; the read of the skill follows it as a tool result.
    const first = (p.requests[0]!.body as { messages: Array<{ role: string; content: unknown }> })
      .messages[0]!;
    expect(first.role).toBe('user');
    expect(JSON.stringify(first.content)).toContain('Say hello.');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('1/1 passed (100%');
  });

  it('grades the files a script the model ran wrote, and keeps them under outputs/files/', async () => {
    const dir = join(tempDir(), 'adder');
    mkdirSync(join(dir, 'scripts'), { recursive: true });
    mkdirSync(join(dir, 'evals'), { recursive: true });
    writeFileSync(
      join(dir, 'SKILL.md'),
      '---\nname: adder\ndescription: Adds numbers with its script.\n---\n\nRun scripts/add.py with the numbers as arguments.\n',
    );
    writeFileSync(
      join(dir, 'scripts', 'add.py'),
      "import os, sys\nos.makedirs('out', exist_ok=True)\nopen('out/summary.txt', 'w').write('TOTAL=%d\\n' % sum(int(a) for a in sys.argv[1:]))\nprint('wrote out/summary.txt')\n",
    );
    writeFileSync(
      join(dir, 'evals', 'evals.json'),
      JSON.stringify({
        evals: [{ id: 1, prompt: 'Add 40 and 2.', assertions: [{ type: 'contains', value: 'TOTAL=42' }] }],
      }),
    );
    const home = tempDir();
    expect((await runCli(['--home', home, 'skills', 'import', dir])).code).toBe(0);
    const p = await provider([
      {
        tool_calls: [
          { name: 'run_script', arguments: { name: 'adder', script: 'scripts/add.py', args: ['40', '2'] } },
        ],
        expect: { tool_result_contains: 'scripts/add.py' },
      },
      { text: 'Done: see the summary.', expect: { tool_result_contains: 'out/summary.txt' } },
    ]);
    const out = join(tempDir(), 'results');
    const r = await runCli([
      '--home',
      home,
      '--json',
      'skills',
      'eval',
      'adder',
      '--out',
      out,
      ...llmFlags(p),
    ]);
    expect(p.requests.map((q) => q.expectation_error)).toEqual([undefined, undefined]);
    expect(r.code, r.stderr).toBe(0);
    // Only the file says TOTAL=42 (the script printed its name, the model did not repeat it).
    expect(r.json().results[0].runs[0].files).toMatchObject([{ path: 'out/summary.txt', size: 9 }]);
    const run = join(out, 'iteration-1', 'eval-1', 'with_skill', 'run-1');
    expect(readFileSync(join(run, 'outputs', 'files', 'out', 'summary.txt'), 'utf8')).toBe('TOTAL=42\n');
    const grading = JSON.parse(readFileSync(join(run, 'grading.json'), 'utf8'));
    expect(grading.expectations[0]).toMatchObject({ passed: true });
    expect(grading.execution_metrics).toMatchObject({
      tool_calls: { run_script: 1 },
      files_created: ['out/summary.txt'],
    });
  }, 120_000);

  it('refuses an output eval with no checks (exit 2) before asking the model anything', async () => {
    const home = await imported({
      evals: [
        { id: 1, prompt: 'Write a welcome.', expectations: ['It is friendly'] },
        { id: 'bare', prompt: 'Write a farewell.', expected_output: 'A farewell' },
      ],
    });
    const p = await provider([{ text: 'never asked' }]);
    const out = join(tempDir(), 'results');
    const r = await runCli(['--home', home, 'skills', 'eval', 'house-style', '--out', out, ...llmFlags(p)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('eval bare has no checks');
    expect(r.stderr).toContain('"expectations"');
    expect(p.requests).toEqual([]);
    expect(existsSync(out)).toBe(false);
  });

  it('without a model, output evals are not graded (exit 3) while trigger evals still run', async () => {
    const home = await imported({
      evals: [
        { id: 1, prompt: 'Write a one-line welcome for new users.', expectations: ['It is friendly'] },
        { id: 2, prompt: "write product copy in the company's house style", should_trigger: true },
      ],
    });
    const out = join(tempDir(), 'results');
    const r = await runCli(['--home', home, '--json', 'skills', 'eval', 'house-style', '--out', out]);
    expect(r.code, r.stderr).toBe(3);
    const res = r.json();
    expect(res).toMatchObject({ total: 2, passed: 1, not_graded: 1, ok: false, model: null });
    expect(res.results[0]).toMatchObject({
      kind: 'output',
      passed: false,
      graded: false,
      checks: [{ check: 'It is friendly', passed: null }],
    });
    expect(res.results[0].reason).toContain('not graded: no model is configured');
    expect(res.results[1]).toMatchObject({ kind: 'trigger', passed: true, rank: 1 });

    const human = await runCli(['--home', home, 'skills', 'eval', 'house-style', '--no-save']);
    expect(human.code).toBe(3);
    expect(human.stdout).toContain('N/G  output  #1');
    expect(human.stdout).toContain('pass --provider and --model');
    expect(human.stdout).not.toContain('100%');
  });
});

describe('benchmark statistics', () => {
  it('are the mean and sample standard deviation, rounded as skill-creator rounds them', () => {
    expect(stats([])).toEqual({ mean: 0, stddev: 0, min: 0, max: 0 });
    expect(stats([0.5])).toEqual({ mean: 0.5, stddev: 0, min: 0.5, max: 0.5 });
    expect(stats([1, 0.5, 0])).toEqual({ mean: 0.5, stddev: 0.5, min: 0, max: 1 });
    expect(stats([42.5, 38, 51.2])).toEqual({ mean: 43.9, stddev: 6.7104, min: 38, max: 51.2 });
  });
});
