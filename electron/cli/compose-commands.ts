import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { ComposeRes, ComposeRoundView } from '../contract/composer.js';
import { AppError } from '../contract/errors.js';
import type { SavePackageRes, SkillScope } from '../contract/skills.js';
import { type CliContext, EXIT } from './context.js';
import { llmFromFlags } from './dispatch-commands.js';
import { untilInterrupted, withClient } from './host.js';
import { addLlmOptions } from './llm-commands.js';
import { describeTriggerRegression, scopeOption } from './skills-commands.js';

function nonNegativeInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 10) throw new AppError('USAGE', '--max-rounds must be 0..10');
  return n;
}

/** One line per round (and one per problem) for stderr. */
export function formatRound(step: string, r: ComposeRoundView & { max_rounds: number }): string {
  const head = `${step} round ${r.round + 1}/${r.max_rounds + 1}: ${
    r.ok ? 'valid' : `${r.issues.length} problem${r.issues.length === 1 ? '' : 's'}`
  } (${r.input_tokens} in / ${r.output_tokens} out tokens, ${(r.duration_ms / 1000).toFixed(1)} s)`;
  return [head, ...r.issues.slice(0, 20).map((i) => `  [${i.stage}] ${i.path}: ${i.message}`)].join('\n');
}

/** `compose "DESCRIPTION" [--refine FEEDBACK]… [--save --scope S]`: the Composer agent from the shell. */
export function registerComposeCommands(program: Command, ctx: CliContext): void {
  addLlmOptions(
    program
      .command('compose')
      .description(
        'write a skill package from a description with the configured model (validated and repaired; rounds on stderr)',
      )
      .argument('<description>', 'what the skill should do')
      .option(
        '--refine <feedback>',
        'then change it as asked (repeatable; every change is kept)',
        (v: string, prev: string[]) => [...prev, v],
        [] as string[],
      )
      .option('--max-rounds <n>', 'repair rounds after each answer (0..10)', nonNegativeInt, 3)
      .option('--save', 'save the package when it is valid')
      .addOption(
        scopeOption('store to save into (default: workspace when --workspace is given, else account)'),
      ),
  ).action(async (description: string, o: Record<string, unknown>) => {
    const g = ctx.globals();
    const scope = (o.scope as SkillScope | undefined) ?? (g.workspace ? 'workspace' : 'account');
    if (o.scope && !o.save) throw new AppError('USAGE', '--scope only applies with --save');
    if (scope === 'workspace' && !g.workspace)
      throw new AppError('USAGE', 'the workspace scope needs --workspace DIR');
    const llm = await llmFromFlags(ctx, o);
    if (!llm) {
      throw new AppError(
        'LLM_NOT_CONFIGURED',
        'compose needs a model: pass --provider (and --model), or set SKILLDESK_PROVIDER',
      );
    }
    const maxRounds = o.maxRounds as number;
    const refinements = o.refine as string[];
    const out = await withClient(
      ctx,
      async (c) => {
        let step = 'create';
        const runId = randomUUID();
        const stop = c.subscribe('composer/round-finished', (r) => {
          if (r.run_id === runId && !g.json) ctx.io.stderr(`${formatRound(step, r)}\n`);
        });
        try {
          return await untilInterrupted(async (signal) => {
            const steps: Array<{
              step: string;
              ok: boolean;
              rounds: ComposeRoundView[];
              changes?: ComposeRes['changes'];
            }> = [];
            let r = await c.invoke(
              'composer/create',
              { description, max_rounds: maxRounds, run_id: runId },
              { signal },
            );
            steps.push({ step, ok: r.ok, rounds: r.rounds });
            for (const [i, feedback] of refinements.entries()) {
              if (!r.ok) break;
              step = `refine ${i + 1}`;
              r = await c.invoke(
                'composer/refine',
                { draft: r.draft, feedback, max_rounds: maxRounds, run_id: runId },
                { signal },
              );
              steps.push({ step, ok: r.ok, rounds: r.rounds, changes: r.changes });
              if (!g.json) for (const ch of r.changes) ctx.io.stderr(`${step}: ${ch.change} ${ch.name}\n`);
            }
            let saved: SavePackageRes['saved'] | null = null;
            let regressed: SavePackageRes['trigger_regression'];
            if (o.save && r.ok) {
              const out = await c.invoke('skills/save-package', { package: r.draft, scope });
              saved = out.saved;
              regressed = out.trigger_regression;
            }
            return { r, steps, saved, regressed };
          });
        } finally {
          stop();
        }
      },
      { llm },
    );
    const { r, steps, saved, regressed } = out;
    ctx.print(
      {
        package: r.draft,
        ok: r.ok,
        model: r.model,
        steps: steps.map((s) => ({
          step: s.step,
          ok: s.ok,
          rounds: s.rounds,
          ...(s.changes ? { changes: s.changes } : {}),
        })),
        saved,
        ...(regressed?.length ? { trigger_regression: regressed } : {}),
      },
      () => JSON.stringify(r.draft, null, 2),
    );
    if (!r.ok) {
      const last = steps[steps.length - 1]!;
      if (!g.json)
        ctx.io.stderr(
          `error: the package still fails ${last.rounds[last.rounds.length - 1]?.issues.length ?? 0} check(s) after ${last.rounds.length} answer(s)${o.save ? '; nothing was saved' : ''} (try --max-rounds, or a clearer description)\n`,
        );
      ctx.setExitCode(EXIT.FAILURE);
    } else if (regressed?.length) {
      // The draft replaces a skill whose trigger evals it does worse on: printed, not saved.
      ctx.io.stderr(
        `not saved: this draft would lower the trigger rates (phase 1, measured on the trigger evals):\n${regressed.map((x) => describeTriggerRegression(x)).join('\n')}\n`,
      );
      ctx.setExitCode(EXIT.FAILURE);
    } else if (saved && !g.json) {
      ctx.io.stderr(`saved "${saved.name}" ${saved.version} to the ${saved.scope} store (${saved.action})\n`);
    }
  });
}
