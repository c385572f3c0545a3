import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { AppError } from '../contract/errors.js';
import { OPTIMIZE_METRICS, OPTIMIZERS, type SkillScope } from '../contract/skills.js';
import type { CliContext } from './context.js';
import { llmFromFlags } from './dispatch-commands.js';
import { untilInterrupted, withClient } from './host.js';
import { addLlmOptions } from './llm-commands.js';
import { positiveInt } from './skills-commands.js';

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** `skills optimize` (added to the `skills` group). */
export function registerOptimizeCommands(program: Command, ctx: CliContext): void {
  const skills = program.commands.find((c) => c.name() === 'skills');
  if (!skills) return;
  addLlmOptions(
    skills
      .command('optimize')
      .description(
        'optimize a dspy_module artifact on a training set (JSON lines) and store its new state blob',
      )
      .argument('<name>', 'skill name')
      .requiredOption('--artifact <name>', 'the dspy_module artifact')
      .option('--trainset <file>', 'training examples, one JSON object per line with every signature field')
      .option(
        '--evals',
        "train on the skill's output evals (every third validates); pass rates before and after; saved as a new version",
      )
      .addOption(
        new Option('--metric <metric>', 'how a prediction is scored')
          .choices([...OPTIMIZE_METRICS])
          .default('exact_match'),
      )
      .addOption(
        new Option('--optimizer <name>', 'DSPy optimizer')
          .choices([...OPTIMIZERS])
          .default('bootstrap_few_shot'),
      )
      .option('--max-demos <n>', 'demos per predictor (1..16)', positiveInt('--max-demos'), 4)
      .option('--no-evaluate', 'skip scoring the compiled program on the training set')
      .addOption(new Option('--scope <scope>', 'store of the skill').choices(['workspace', 'account'])),
  ).action(async (name: string, o: Record<string, unknown>) => {
    const { formatProgress, parseTrainingJsonl } = await import('../sidecar-client/index.js');
    if (!o.trainset === !o.evals) throw new AppError('USAGE', 'give either --trainset FILE or --evals');
    let trainingData: ReturnType<typeof parseTrainingJsonl> | undefined;
    if (o.trainset) {
      const file = resolve(String(o.trainset));
      if (!existsSync(file)) throw new AppError('USAGE', `--trainset ${o.trainset}: no such file`);
      trainingData = parseTrainingJsonl(readFileSync(file, 'utf8'), file);
      if (trainingData.length === 0) throw new AppError('INVALID_INPUT', `${file}: no training examples`);
    }
    const llm = await llmFromFlags(ctx, o);
    const g = ctx.globals();
    const runId = randomUUID();
    const { optimized } = await withClient(
      ctx,
      async (c) => {
        const stop = c.subscribe('skills/optimize-progressed', (p) => {
          if (p.run_id !== runId || g.json) return;
          const line = formatProgress(p);
          ctx.io.stderr(ctx.io.isTty ? `\r${line}` : `${line}\n`);
        });
        try {
          return await untilInterrupted((signal) =>
            c.invoke(
              'skills/optimize',
              {
                name,
                scope: o.scope as SkillScope | undefined,
                artifact: String(o.artifact),
                ...(trainingData ? { training_data: trainingData } : { evals: true }),
                metric: o.metric as (typeof OPTIMIZE_METRICS)[number],
                optimizer: o.optimizer as (typeof OPTIMIZERS)[number],
                max_demos: o.maxDemos as number,
                evaluate: o.evaluate !== false,
                run_id: runId,
              },
              { signal },
            ),
          );
        } finally {
          stop();
        }
      },
      { llm },
    );
    if (!g.json && ctx.io.isTty) ctx.io.stderr('\n');
    const r = optimized;
    ctx.print({ optimized }, () =>
      [
        `Optimized ${r.name} / ${r.artifact} on ${r.examples} examples in ${(r.took_ms / 1000).toFixed(1)} s`,
        `  demos: ${
          Object.entries(r.demos)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ') || 'none'
        }${r.score !== null ? `, score ${(r.score * 100).toFixed(0)}%` : ''}`,
        `  ${r.lm_calls} model calls, ${r.input_tokens} in / ${r.output_tokens} out tokens`,
        ...r.warnings.map((w) => `  warning: ${w}`),
        ...(r.evals
          ? [
              `  evals: ${r.evals.train} train / ${r.evals.validation} validation; validation pass rate ${pct(r.evals.before.pass_rate)} → ${pct(r.evals.after.pass_rate)}`,
              `  saved as version ${r.evals.version} (${r.evals.previous_version} kept; skills versions "${r.name}")`,
            ]
          : [`  state blob saved to the ${r.scope} store`]),
      ].join('\n'),
    );
  });
}
