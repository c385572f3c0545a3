import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { AppError } from '../contract/errors.js';
import { sidecarLm } from '../dispatch/runtime.js';
import {
  formatProgress,
  OPTIMIZE_METRICS,
  OPTIMIZERS,
  parseDspyModuleContent,
  parseTrainingJsonl,
} from '../sidecar-client/index.js';
import { openCatalog } from '../skills/index.js';
import type { Scope } from '../store/stores.js';
import type { CliContext } from './context.js';
import { llmFromFlags } from './dispatch-commands.js';
import { addLlmOptions } from './llm-commands.js';
import { addCommands } from './main.js';
import { createCliSidecarClient } from './sidecar-commands.js';
import { positiveInt } from './skills-commands.js';

addCommands((program: Command, ctx: CliContext) => {
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
      .requiredOption(
        '--trainset <file>',
        'training examples, one JSON object per line with every signature field',
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
    const file = resolve(String(o.trainset));
    if (!existsSync(file)) throw new AppError('USAGE', `--trainset ${o.trainset}: no such file`);
    const trainingData = parseTrainingJsonl(readFileSync(file, 'utf8'), file);
    if (trainingData.length === 0) throw new AppError('INVALID_INPUT', `${file}: no training examples`);
    const llm = llmFromFlags(ctx, o);
    if (!llm && o.optimizer !== 'labeled_few_shot') {
      throw new AppError(
        'LLM_NOT_CONFIGURED',
        'optimizing calls the model: pass --provider and --model (or use --optimizer labeled_few_shot, which needs none)',
      );
    }
    const g = ctx.globals();
    const catalog = openCatalog({ home: g.home, workspace: g.workspace, env: ctx.env });
    const client = createCliSidecarClient(
      ctx,
      sidecarLm(() => llm),
    );
    try {
      const found = catalog.resolve(name, o.scope as Scope | undefined);
      if (!found) throw new AppError('NOT_FOUND', `no skill named "${name}"; see: skilldesk skills list`);
      const artifact = found.skill.artifacts.find((a) => a.name === o.artifact && a.kind === 'dspy_module');
      if (!artifact) {
        throw new AppError(
          'NOT_FOUND',
          `skill "${found.skill.name}" has no dspy_module named "${o.artifact}"`,
        );
      }
      const content = parseDspyModuleContent(artifact.content, `${found.skill.name} / ${artifact.name}`);
      const progress = (line: string) => {
        if (!g.json) ctx.io.stderr(ctx.io.isTty ? `\r${line}` : `${line}\n`);
      };
      const started = performance.now();
      const r = await client.optimize({
        template_id: content.template_id,
        signature: content.signature,
        training_data: trainingData,
        metric: o.metric as (typeof OPTIMIZE_METRICS)[number],
        optimizer: o.optimizer as (typeof OPTIMIZERS)[number],
        max_demos: o.maxDemos as number,
        evaluate: o.evaluate !== false && llm !== null,
        state_blob: artifact.state_blob
          ? JSON.parse(Buffer.from(artifact.state_blob).toString('utf8'))
          : null,
        onProgress: (p) => progress(formatProgress(p)),
      });
      if (!g.json && ctx.io.isTty) ctx.io.stderr('\n');
      const store = catalog.store(found.scope)!;
      store.repo.updateArtifact({
        ...artifact,
        state_blob: Buffer.from(JSON.stringify(r.state_blob), 'utf8'),
      });
      const took = Math.round(performance.now() - started);
      ctx.print(
        {
          optimized: {
            name: found.skill.name,
            scope: found.scope,
            artifact: artifact.name,
            examples: trainingData.length,
            demos: r.demos,
            score: r.score ?? null,
            lm_calls: r.usage.lm_calls,
            input_tokens: r.usage.input_tokens,
            output_tokens: r.usage.output_tokens,
            warnings: r.warnings,
            took_ms: took,
          },
        },
        () =>
          [
            `Optimized ${found.skill.name} / ${artifact.name} on ${trainingData.length} examples in ${(took / 1000).toFixed(1)} s`,
            `  demos: ${
              Object.entries(r.demos)
                .map(([k, v]) => `${k} ${v}`)
                .join(', ') || 'none'
            }${r.score !== undefined ? `, score ${(r.score * 100).toFixed(0)}%` : ''}`,
            `  ${r.usage.lm_calls} model calls, ${r.usage.input_tokens} in / ${r.usage.output_tokens} out tokens`,
            ...r.warnings.map((w) => `  warning: ${w}`),
            `  state blob saved to the ${found.scope} store`,
          ].join('\n'),
      );
    } finally {
      await client.dispose();
      catalog.close();
    }
  });
});
