/**
 * A `skills/eval` result as the files skill-creator (github.com/anthropics/skills) reads and writes:
 * one iteration folder with `eval-<id>/eval_metadata.json`, and per configuration and run
 * `eval-<id>/<with_skill|without_skill>/run-<n>/{grading.json,timing.json,outputs/}`, then
 * `benchmark.json` and `benchmark.md` over all runs. Field names follow its references/schemas.md
 * exactly, because its viewer and its aggregate script read them by name. Pure: the caller writes.
 */
import type { EvalResultView, EvalRunView, EvalSkillRes } from '../contract/skills.js';
import { skillSlug } from './agent-skill.js';
import { safeRelativePath } from './safe-path.js';

/** One file of the iteration folder, relative to it. */
export interface EvalFile {
  path: string;
  content: string | Uint8Array;
}

/** Mean, sample standard deviation, min and max, rounded to 4 places (as skill-creator's aggregate). */
export function stats(values: number[]): { mean: number; stddev: number; min: number; max: number } {
  if (values.length === 0) return { mean: 0, stddev: 0, min: 0, max: 0 };
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const stddev = n > 1 ? Math.sqrt(values.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1)) : 0;
  const r = (x: number) => Math.round(x * 10_000) / 10_000;
  return { mean: r(mean), stddev: r(stddev), min: r(Math.min(...values)), max: r(Math.max(...values)) };
}

const signed = (x: number, digits: number) => `${x >= 0 ? '+' : '-'}${Math.abs(x).toFixed(digits)}`;

/** An eval id as skill-creator writes it: a number when it is one. */
function evalId(id: string): number | string {
  return /^\d+$/.test(id) ? Number(id) : id;
}

/** The eval's folder: `eval-<id>`, with its name slugged after it when it has one. */
export function evalDir(r: Pick<EvalResultView, 'id' | 'name'>): string {
  const slug = r.name ? skillSlug(r.name) : '';
  const id =
    String(r.id)
      .replace(/[^A-Za-z0-9_-]+/g, '-')
      .slice(0, 60) || 'x';
  return `eval-${id}${slug ? `-${slug.slice(0, 60)}` : ''}`;
}

function timing(run: EvalRunView) {
  const executor = run.duration_ms / 1000;
  const grader = run.judge_duration_ms / 1000;
  return {
    executor_duration_seconds: round1(executor),
    grader_duration_seconds: round1(grader),
    total_duration_seconds: round1(executor + grader),
  };
}
const round1 = (x: number) => Math.round(x * 1000) / 1000;

/** A run's `grading.json`. */
export function gradingOf(run: EvalRunView) {
  const passed = run.expectations.filter((x) => x.passed).length;
  const total = run.expectations.length;
  const notGraded = run.expectations.filter((x) => !x.graded).length;
  const counts: Record<string, number> = {};
  for (const c of run.tool_calls) counts[c.name] = (counts[c.name] ?? 0) + 1;
  return {
    expectations: run.expectations.map((x) => ({ text: x.text, passed: x.passed, evidence: x.evidence })),
    summary: {
      passed,
      failed: total - passed,
      total,
      pass_rate: total ? Math.round((passed / total) * 100) / 100 : 0,
      // Not in skill-creator's files: the checks that could not be graded (counted as failed).
      ...(notGraded ? { not_graded: notGraded } : {}),
    },
    execution_metrics: {
      tool_calls: counts,
      total_tool_calls: run.tool_calls.length,
      total_steps: run.tool_calls.length + 1,
      errors_encountered: run.tool_calls.filter((c) => !c.ok).length + (run.error ? 1 : 0),
      files_created: run.files.map((f) => f.path),
      output_chars: run.reply.length + run.files.reduce((n, f) => n + f.size, 0),
      transcript_chars: JSON.stringify(run.tool_calls).length + run.reply.length,
    },
    timing: timing(run),
  };
}

/** Every output eval's runs, in the order skill-creator lists them (with the skill first). */
function outputRuns(res: EvalSkillRes): Array<{ r: EvalResultView; run: EvalRunView }> {
  return res.results
    .filter((r) => r.kind === 'output')
    .flatMap((r) => (r.runs ?? []).map((run) => ({ r, run })))
    .sort(
      (a, b) =>
        (a.run.configuration === 'with_skill' ? 0 : 1) - (b.run.configuration === 'with_skill' ? 0 : 1),
    );
}

/** `benchmark.json`: every run, and per configuration the mean ± stddev of pass rate, time and tokens. */
export function benchmarkOf(res: EvalSkillRes, meta: { timestamp: string }) {
  const all = outputRuns(res);
  const runs = all.map(({ r, run }) => {
    const g = gradingOf(run);
    return {
      eval_id: evalId(r.id),
      eval_name: r.name ?? `eval-${r.id}`,
      configuration: run.configuration,
      run_number: run.run_number,
      result: {
        pass_rate: g.summary.pass_rate,
        passed: g.summary.passed,
        failed: g.summary.failed,
        total: g.summary.total,
        time_seconds: g.timing.total_duration_seconds,
        tokens: run.input_tokens + run.output_tokens,
        tool_calls: g.execution_metrics.total_tool_calls,
        errors: g.execution_metrics.errors_encountered,
      },
      expectations: g.expectations,
      notes: run.error ? [`the run failed: ${run.error.message}`] : [],
    };
  });
  const configs = [...new Set(runs.map((x) => x.configuration))];
  const summary: Record<string, unknown> = {};
  for (const c of configs) {
    const mine = runs.filter((x) => x.configuration === c);
    summary[c] = {
      pass_rate: stats(mine.map((x) => x.result.pass_rate)),
      time_seconds: stats(mine.map((x) => x.result.time_seconds)),
      tokens: stats(mine.map((x) => x.result.tokens)),
    };
  }
  type S = { pass_rate: { mean: number }; time_seconds: { mean: number }; tokens: { mean: number } };
  const a = summary.with_skill as S | undefined;
  const b = summary.without_skill as S | undefined;
  if (a && b) {
    summary.delta = {
      pass_rate: signed(a.pass_rate.mean - b.pass_rate.mean, 2),
      time_seconds: signed(a.time_seconds.mean - b.time_seconds.mean, 1),
      tokens: signed(a.tokens.mean - b.tokens.mean, 0),
    };
  }
  return {
    metadata: {
      skill_name: res.name,
      skill_path: `skilldesk:${res.scope}/${res.name}`,
      executor_model: res.model ?? 'none',
      analyzer_model: res.model ?? 'none',
      timestamp: meta.timestamp,
      evals_run: [...new Set(all.map(({ r }) => evalId(r.id)))],
      runs_per_configuration: res.runs_per_configuration,
    },
    runs,
    run_summary: summary,
    notes: benchmarkNotes(res, runs),
  };
}

/** Observations any reader can check: checks that do not tell the configurations apart, checks not graded. */
function benchmarkNotes(
  res: EvalSkillRes,
  runs: Array<{ configuration: string; expectations: Array<{ text: string; passed: boolean }> }>,
): string[] {
  const notes: string[] = [];
  if (res.baseline) {
    const texts = new Set(runs.flatMap((r) => r.expectations.map((x) => x.text)));
    for (const t of texts) {
      const rate = (c: string) => {
        const xs = runs
          .filter((r) => r.configuration === c)
          .flatMap((r) => r.expectations.filter((x) => x.text === t));
        return xs.length ? xs.filter((x) => x.passed).length / xs.length : null;
      };
      if (rate('with_skill') === 1 && rate('without_skill') === 1)
        notes.push(`"${t}" passes in both configurations: it does not show what the skill adds`);
    }
  }
  if (res.not_graded > 0)
    notes.push(`${res.not_graded} eval(s) had checks that could not be graded (counted as failed here)`);
  return notes;
}

/** `benchmark.md`: the summary table of skill-creator's aggregate, for people. */
export function benchmarkMarkdown(b: ReturnType<typeof benchmarkOf>): string {
  type S = Record<'pass_rate' | 'time_seconds' | 'tokens', { mean: number; stddev: number }>;
  const s = b.run_summary as Record<string, S | Record<string, string>>;
  const a = s.with_skill as S | undefined;
  const w = s.without_skill as S | undefined;
  const d = (s.delta ?? {}) as Record<string, string>;
  const pct = (x?: { mean: number; stddev: number }) =>
    x ? `${(x.mean * 100).toFixed(0)}% ± ${(x.stddev * 100).toFixed(0)}%` : '—';
  const sec = (x?: { mean: number; stddev: number }) =>
    x ? `${x.mean.toFixed(1)}s ± ${x.stddev.toFixed(1)}s` : '—';
  const tok = (x?: { mean: number; stddev: number }) =>
    x ? `${x.mean.toFixed(0)} ± ${x.stddev.toFixed(0)}` : '—';
  const lines = [
    `# Skill Benchmark: ${b.metadata.skill_name}`,
    '',
    `**Model**: ${b.metadata.executor_model}`,
    `**Date**: ${b.metadata.timestamp}`,
    `**Evals**: ${b.metadata.evals_run.join(', ')} (${b.metadata.runs_per_configuration} runs each per configuration)`,
    '',
    '## Summary',
    '',
    '| Metric | With Skill | Without Skill | Delta |',
    '|--------|------------|---------------|-------|',
    `| Pass Rate | ${pct(a?.pass_rate)} | ${pct(w?.pass_rate)} | ${d.pass_rate ?? '—'} |`,
    `| Time | ${sec(a?.time_seconds)} | ${sec(w?.time_seconds)} | ${d.time_seconds ? `${d.time_seconds}s` : '—'} |`,
    `| Tokens | ${tok(a?.tokens)} | ${tok(w?.tokens)} | ${d.tokens ?? '—'} |`,
  ];
  if (b.notes.length) lines.push('', '## Notes', '', ...b.notes.map((n) => `- ${n}`));
  return `${lines.join('\n')}\n`;
}

/**
 * The iteration folder's files for a result: per output eval its metadata and each run's grading,
 * timing and outputs; `benchmark.json`/`.md` when any output eval ran; `results.json` (the whole
 * reply, trigger evals included).
 */
export function evalWorkspaceFiles(res: EvalSkillRes, meta: { timestamp: string }): EvalFile[] {
  const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
  const files: EvalFile[] = [];
  for (const r of res.results.filter((x) => x.kind === 'output')) {
    const dir = evalDir(r);
    files.push({
      path: `${dir}/eval_metadata.json`,
      content: json({
        eval_id: evalId(r.id),
        eval_name: r.name ?? dir,
        prompt: r.prompt,
        assertions: r.checks.map((c) => c.check),
      }),
    });
    for (const run of r.runs ?? []) {
      const at = `${dir}/${run.configuration}/run-${run.run_number}`;
      const g = gradingOf(run);
      files.push({ path: `${at}/grading.json`, content: json(g) });
      files.push({
        path: `${at}/timing.json`,
        content: json({
          total_tokens: run.input_tokens + run.output_tokens,
          duration_ms: run.duration_ms + run.judge_duration_ms,
          ...g.timing,
        }),
      });
      files.push({
        path: `${at}/outputs/reply.md`,
        content: run.reply.endsWith('\n') ? run.reply : `${run.reply}\n`,
      });
      files.push({
        path: `${at}/outputs/transcript.json`,
        content: json({
          prompt: r.prompt,
          tool_calls: run.tool_calls,
          reply: run.reply,
          files: run.files.map(({ data_base64: _d, ...f }) => f),
          error: run.error,
        }),
      });
      // What the model's scripts wrote, under outputs/files/ (a path that would leave it is skipped).
      for (const f of run.files) {
        if (f.data_base64 === undefined) continue;
        let safe: string;
        try {
          safe = safeRelativePath(f.path, 'a file a script wrote');
        } catch {
          continue;
        }
        files.push({ path: `${at}/outputs/files/${safe}`, content: Buffer.from(f.data_base64, 'base64') });
      }
    }
  }
  if (outputRuns(res).length > 0) {
    const b = benchmarkOf(res, meta);
    files.push({ path: 'benchmark.json', content: json(b) });
    files.push({ path: 'benchmark.md', content: benchmarkMarkdown(b) });
  }
  files.push({ path: 'results.json', content: json(res) });
  return files;
}
