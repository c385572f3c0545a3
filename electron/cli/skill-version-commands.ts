// `skilldesk skills versions|diff|restore|fork|validate|edit`: a skill's history and authoring from
// the command line (added to the `skills` group). Thin faces over the host's `skills/*` channels.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { AppError } from '../contract/errors.js';
import { modelLabel } from '../contract/model-label.js';
import type { EvalSkillRes, SkillScope } from '../contract/skills.js';
import { type CliContext, EXIT } from './context.js';
import { llmFromFlags } from './dispatch-commands.js';
import { withClient } from './host.js';
import { addLlmOptions } from './llm-commands.js';
import { describeTriggerRegression, scopeOption } from './skills-commands.js';

const storeModule = () => import('../store/index.js');
const skillsModule = () => import('../skills/index.js');

/** The history and authoring commands of the `skills` group. */
export function registerSkillVersionCommands(program: Command, ctx: CliContext): void {
  const skills = program.commands.find((c) => c.name() === 'skills');
  if (!skills) return;

  skills
    .command('versions')
    .description(
      "a skill's kept versions, oldest first (every import, save, restore or delete keeps the one it replaces)",
    )
    .argument('<name>', 'skill name')
    .addOption(scopeOption('store whose history to show (default: where the skill is)'))
    .action(async (name: string, o: { scope?: SkillScope }) => {
      const r = await withClient(ctx, (c) =>
        c.invoke('skills/versions', { name, ...(o.scope ? { scope: o.scope } : {}) }),
      );
      ctx.print(r, () =>
        [
          `${r.name} [${r.scope}]: ${r.current ? `current ${r.current.version}` : 'deleted'}`,
          ...(r.versions.length === 0 ? ['  no earlier versions'] : []),
          ...r.versions.map(
            (v) =>
              `  ${String(v.number).padStart(3)}  ${v.version.padEnd(10)} ${v.created_at}  replaced by ${v.origin}${v.note ? ` — ${v.note}` : ''}`,
          ),
        ].join('\n'),
      );
    });

  skills
    .command('diff')
    .description(
      'how two versions of a skill differ, artifact by artifact (a version: its number in `versions`, its version string, or "current")',
    )
    .argument('<name>', 'skill name')
    .argument('<from>', 'older version')
    .argument('[to]', 'newer version (default: current)')
    .addOption(scopeOption('store of the history'))
    .action(async (name: string, from: string, to: string | undefined, o: { scope?: SkillScope }) => {
      const r = await withClient(ctx, (c) =>
        c.invoke('skills/diff-versions', {
          name,
          from,
          ...(to ? { to } : {}),
          ...(o.scope ? { scope: o.scope } : {}),
        }),
      );
      ctx.print(r, () => {
        const lines = [
          `${r.name} [${r.scope}]: ${r.from.ref} (${r.from.version}) → ${r.to.ref} (${r.to.version})`,
        ];
        for (const f of r.fields)
          lines.push(`  ${f.field}: ${JSON.stringify(f.from)} → ${JSON.stringify(f.to)}`);
        for (const a of r.artifacts) {
          if (a.change === 'unchanged') continue;
          lines.push(`${a.change} ${a.kind} "${a.name}"${a.model_variant ? ` (${a.model_variant})` : ''}`);
          if (a.metadata_changed.length) lines.push(`  metadata: ${a.metadata_changed.join(', ')}`);
          if (a.patch) lines.push(a.patch);
        }
        if (lines.length === 1) lines.push('  no differences');
        return lines.join('\n');
      });
    });

  skills
    .command('restore')
    .description('make a kept version current again (the current one is kept, so a restore can be undone)')
    .argument('<name>', 'skill name')
    .argument('<version>', 'its number in `versions`, or its version string')
    .addOption(scopeOption('store of the history'))
    .option('--note <text>', 'why (kept with the replaced version)')
    .action(async (name: string, version: string, o: { scope?: SkillScope; note?: string }) => {
      const r = await withClient(ctx, (c) =>
        c.invoke('skills/restore-version', {
          name,
          version,
          ...(o.scope ? { scope: o.scope } : {}),
          ...(o.note ? { note: o.note } : {}),
        }),
      );
      ctx.print(
        r,
        () =>
          `Restored ${r.restored.name} ${r.restored.version} (version ${r.restored.from_number}) in the ${r.restored.scope} store.`,
      );
    });

  skills
    .command('fork')
    .description(
      'copy an account skill into the workspace store, to customize it there (it then overrides the account one)',
    )
    .argument('<name>', 'skill name')
    .addOption(new Option('--to <scope>', 'where to copy it').choices(['workspace']).makeOptionMandatory())
    .action(async (name: string) => {
      if (!ctx.globals().workspace)
        throw new AppError('USAGE', 'skills fork --to workspace needs --workspace DIR');
      const r = await withClient(ctx, (c) => c.invoke('skills/fork', { name, to: 'workspace' }));
      ctx.print(
        r,
        () =>
          `Forked ${r.forked.name} ${r.forked.version} into the workspace store; it now overrides the account skill.`,
      );
    });

  skills
    .command('validate')
    .description(
      'check a JSON package without importing it: schema errors with their JSON paths, template syntax per artifact (exit 2 on errors)',
    )
    .argument('<path>', 'a .json package')
    .action(async (path: string) => {
      const abs = resolve(path);
      let text: string;
      try {
        if (statSync(abs).size > 10 * 1024 * 1024)
          throw new AppError('TOO_LARGE', `${path}: larger than 10 MiB`);
        text = readFileSync(abs, 'utf8');
      } catch (e) {
        if (e instanceof AppError) throw e;
        throw new AppError('USAGE', `${path}: no such file`);
      }
      const report = await withClient(ctx, async (c) => {
        const pkg = await c.invoke('skills/validate', {
          kind: 'package',
          package: text,
          file_name: basename(abs),
        });
        const templates: Array<{
          artifact: string;
          ok: boolean;
          variables?: string[];
          message?: string;
          line?: number;
          column?: number;
        }> = [];
        if (pkg.ok) {
          const parsed = JSON.parse(text) as {
            artifacts?: Array<{ kind: string; name: string; content: string }>;
          };
          for (const a of parsed.artifacts ?? []) {
            if (a.kind !== 'prompt_template') continue;
            const t = await c.invoke('skills/validate', {
              kind: 'template',
              source: a.content,
              name: a.name,
            });
            templates.push(
              t.ok
                ? { artifact: a.name, ok: true, variables: t.variables ?? [] }
                : { artifact: a.name, ok: false, message: t.message, line: t.line, column: t.column },
            );
          }
        }
        return {
          file: path,
          ok: pkg.ok && templates.every((t) => t.ok),
          issues: pkg.ok ? [] : pkg.issues,
          templates,
          // What does not make the package invalid, but will bite when it runs.
          warnings: pkg.ok ? (pkg.warnings ?? []) : [],
        };
      });
      if (!report.ok) ctx.setExitCode(2);
      const warned = report.warnings.map((w) => `  warning: ${w.path}: ${w.message}`);
      ctx.print(report, () =>
        report.ok
          ? [
              `${path}: valid`,
              ...report.templates.map(
                (t) =>
                  `  ${t.artifact}: variables ${t.variables?.length ? t.variables.join(', ') : '(none)'}`,
              ),
              ...warned,
            ].join('\n')
          : [
              `${path}: not valid`,
              ...report.issues.map((i) => `  ${i.path}: ${i.message}`),
              ...report.templates
                .filter((t) => !t.ok)
                .map(
                  (t) =>
                    `  artifact "${t.artifact}"${t.line ? ` line ${t.line}, column ${t.column}` : ''}: ${t.message}`,
                ),
            ].join('\n'),
      );
    });

  skills
    .command('edit')
    .description(
      'edit a skill as JSON in $EDITOR; it is validated before it is saved (the replaced version is kept)',
    )
    .argument('<name>', 'skill name')
    .addOption(scopeOption('store of the skill'))
    .action(async (name: string, o: { scope?: SkillScope }) => {
      const editor = ctx.env.VISUAL || ctx.env.EDITOR;
      if (!editor) throw new AppError('USAGE', 'set $EDITOR (or $VISUAL) to the editor to use');
      await withClient(ctx, async (c) => {
        const exported = await c.invoke('skills/export-package', {
          name,
          ...(o.scope ? { scope: o.scope } : {}),
        });
        const dir = mkdtempSync(join(tmpdir(), 'skilldesk-edit-'));
        const file = join(dir, exported.file_name);
        writeFileSync(file, exported.text, { mode: 0o600 });
        const r = spawnSync(editor, [file], { stdio: 'inherit', shell: true });
        if (r.status !== 0)
          throw new AppError('USAGE', `the editor exited with ${r.status ?? r.signal}; nothing was saved`);
        const text = readFileSync(file, 'utf8');
        if (text === exported.text) {
          rmSync(dir, { recursive: true, force: true });
          ctx.print({ edited: null }, () => 'No changes.');
          return;
        }
        const checked = await c.invoke('skills/validate', {
          kind: 'package',
          package: text,
          file_name: exported.file_name,
        });
        if (!checked.ok) {
          throw new AppError(
            'INVALID_INPUT',
            `${checked.issues.map((i) => `${i.path}: ${i.message}`).join('; ')} — nothing was saved; your edit is in ${file}`,
          );
        }
        const out = await c.invoke('skills/import-package', {
          package: text,
          file_name: exported.file_name,
          scope: exported.scope,
          force: true,
        });
        if (out.trigger_regression?.length) {
          // Held: the edit stays where the user can fix it or import it with --force.
          ctx.io.stderr(
            `not saved: this edit would lower the trigger rates (phase 1, measured on the trigger evals):\n${out.trigger_regression.map((x) => describeTriggerRegression(x)).join('\n')}\nYour edit is in ${file}; save it anyway with: skilldesk skills import --force ${file}\n`,
          );
          ctx.setExitCode(EXIT.FAILURE);
          ctx.print({ edited: out }, () => `Not saved: ${name} keeps its current version.`);
          return;
        }
        rmSync(dir, { recursive: true, force: true });
        ctx.print(
          { edited: out },
          () => `Saved ${name} in the ${exported.scope} store (the previous version is kept).`,
        );
      });
    });

  addLlmOptions(
    skills
      .command('eval')
      .description(
        "run a skill's evals (its evals/evals.json): trigger evals check the phase-1 rank (and which skill the model would pick); output evals send each prompt to the model in a chat turn with the skill (with --baseline also without it) and grade the reply and tool results against the eval's assertions and expectations (statements judged by the same model). Writes grading.json per run and benchmark.json (skill-creator's shapes) under --out. Exit 0 passed, 1 below the threshold, 2 invalid evals, 3 some checks not graded (no model)",
      )
      .argument('<name>', 'skill name')
      .addOption(scopeOption('store of the skill'))
      .addOption(new Option('--only <kind>', 'run only these evals').choices(['trigger', 'output']))
      .option('--threshold <rate>', "pass rate needed, 0..1 (default: the file's threshold, else 0.8)")
      .option('--baseline', 'also run each output eval without the skill (the without_skill configuration)')
      .option('--runs <n>', 'runs per configuration of each output eval, 1..20 (default 1)')
      .option(
        '--out <dir>',
        'folder of the results: each run adds iteration-<N>/ with grading.json per run and benchmark.json (default: ./<skill>-workspace)',
      )
      .option('--no-save', 'write no result files'),
  ).action(async (name: string, o: Record<string, unknown>) => {
    const threshold = o.threshold === undefined ? undefined : Number(o.threshold);
    if (threshold !== undefined && !(threshold >= 0 && threshold <= 1)) {
      throw new AppError('USAGE', '--threshold must be a number from 0 to 1');
    }
    const runs = o.runs === undefined ? undefined : Number(o.runs);
    if (runs !== undefined && !(Number.isInteger(runs) && runs >= 1 && runs <= 20)) {
      throw new AppError('USAGE', '--runs must be a whole number from 1 to 20');
    }
    const llm = await llmFromFlags(ctx, o);
    const { r, providers } = await withClient(
      ctx,
      async (c) => ({
        r: await c.invoke('skills/eval', {
          name,
          ...(o.scope ? { scope: o.scope as SkillScope } : {}),
          ...(o.only ? { only: o.only as 'trigger' | 'output' } : {}),
          ...(threshold !== undefined ? { threshold } : {}),
          ...(o.baseline ? { baseline: true } : {}),
          ...(runs !== undefined ? { runs } : {}),
        }),
        // The human summary names the model by its provider's label; --json keeps the id.
        providers: ctx.globals().json
          ? null
          : await c.invoke('settings/get', {}).then((v) => [...v.configured, ...v.providers]),
      }),
      { llm },
    );
    const saved =
      o.save === false
        ? null
        : await writeEvalWorkspace(
            resolve(
              typeof o.out === 'string'
                ? o.out
                : `${(await skillsModule()).skillSlug(r.name) || 'skill'}-workspace`,
            ),
            r,
          );
    if (r.not_graded > 0) ctx.setExitCode(3);
    else if (!r.ok) ctx.setExitCode(1);
    ctx.print({ ...r, saved_to: saved }, () =>
      [
        `${r.name} [${r.scope}]: ${r.passed}/${r.total} passed (${Math.round(r.pass_rate * 100)}%, threshold ${Math.round(r.threshold * 100)}%)${r.model ? ` · model ${modelLabel(r.model, providers)}` : ' · no model configured'}`,
        ...(r.baseline
          ? [
              `  without the skill: ${r.baseline.passed}/${r.baseline.total} runs passed (${Math.round(r.baseline.pass_rate * 100)}%)`,
            ]
          : []),
        ...r.results.map((x) => {
          const mark = x.graded === false ? 'N/G ' : x.passed ? 'pass' : 'FAIL';
          const head = `  ${mark} ${x.kind.padEnd(7)} #${x.id} ${JSON.stringify(x.prompt.slice(0, 60))}${x.kind === 'trigger' ? ` rank ${x.rank ?? '-'}${x.model_chose == null ? '' : x.model_chose ? ', the model chose it' : `, the model chose ${x.model_choice ?? 'none'}`}${x.should_trigger ? '' : ' (should not fire)'}` : ''}`;
          const why = x.reason ? `\n      ${x.reason}` : '';
          const base = (x.runs ?? []).filter((z) => z.configuration === 'without_skill');
          const baseLine = base.length
            ? `\n      without the skill: ${base.filter((z) => z.passed).length}/${base.length} run(s) passed`
            : '';
          return `${head}${why}${baseLine}`;
        }),
        ...(r.not_graded > 0
          ? [
              `  ${r.not_graded} eval(s) not graded: output evals need a model to answer the prompt and to judge statements; pass --provider and --model (key in the environment) or set SKILLDESK_PROVIDER`,
            ]
          : []),
        // The run's totals (remembered per model in the skill's store).
        `  ${(r.duration_ms / 1000).toFixed(1)} s · ${r.input_tokens} in / ${r.output_tokens} out tokens${r.estimated_cost ? ` · $${r.estimated_cost.toFixed(4)}` : ''}`,
        ...(saved ? [`  results in ${saved} (grading.json per run, benchmark.json)`] : []),
      ].join('\n'),
    );
  });
  addLlmOptions(
    skills
      .command('trigger-eval')
      .description(
        "measure whether skills fire when they should: each skill's trigger evals (evals/trigger-evals.json, skill-creator's list of {query, should_trigger}, and should_trigger entries of evals/evals.json) through phase 1 alone — deterministic, no model — and, with --with-model, through the whole turn (phase 1 lists the skill and the model chooses it). Reports recall and precision per skill beside its last run with the same model. Exit 0 measured, 1 below --min-recall/--min-precision, 2 invalid input or the cost cap",
      )
      .argument('[names...]', 'skills to measure (default: every skill that has trigger evals)')
      .addOption(scopeOption('store of the skills'))
      .option(
        '--with-model',
        'also ask the model, for each query phase 1 lists the skill for, whether it would use it',
      )
      .option('--max-cost <usd>', 'with --with-model: refuse to start above this estimated cost (default 1)')
      .option(
        '--min-recall <rate>',
        "exit 1 when a skill's recall (the turn's with --with-model) is below this, 0..1",
      )
      .option('--min-precision <rate>', "exit 1 when a skill's precision is below this, 0..1")
      .option('--no-record', "do not remember this run in the skills' stores"),
    { configured: true },
  ).action(async (names: string[], o: Record<string, unknown>) => {
    const rate = (flag: string, v: unknown) => {
      if (v === undefined) return undefined;
      const x = Number(v);
      if (!(x >= 0 && x <= 1)) throw new AppError('USAGE', `${flag} must be a number from 0 to 1`);
      return x;
    };
    const minRecall = rate('--min-recall', o.minRecall);
    const minPrecision = rate('--min-precision', o.minPrecision);
    const maxCost = o.maxCost === undefined ? undefined : Number(o.maxCost);
    if (maxCost !== undefined && !(maxCost >= 0))
      throw new AppError('USAGE', '--max-cost must be a number of USD, 0 or more');
    const withModel = o.withModel === true;
    const llm = withModel ? await llmFromFlags(ctx, o) : null;
    const r = await withClient(
      ctx,
      (c) =>
        c.invoke('skills/trigger-eval', {
          ...(names.length ? { names } : {}),
          ...(o.scope ? { scope: o.scope as SkillScope } : {}),
          ...(withModel ? { with_model: true } : {}),
          ...(maxCost !== undefined ? { max_cost: maxCost } : {}),
          ...(o.record === false ? { record: false } : {}),
        }),
      withModel && llm === null ? { llm: 'configured' } : { llm },
    );
    const below = r.skills.filter((s) => {
      const rates = s.turn ?? s.phase1;
      return (
        (minRecall !== undefined && rates.recall !== null && rates.recall < minRecall) ||
        (minPrecision !== undefined && rates.precision !== null && rates.precision < minPrecision)
      );
    });
    if (below.length > 0) ctx.setExitCode(1);
    const pct = (x: number | null) => (x === null ? '–' : `${Math.round(x * 100)}%`);
    const change = (now: number | null, was: number | null | undefined) =>
      now === null || was === null || was === undefined || now === was
        ? ''
        : now < was
          ? ` (was ${pct(was)}, lower)`
          : ` (was ${pct(was)})`;
    ctx.print(r, () =>
      [
        ...(r.estimate
          ? [
              `asked ${r.model} ${r.estimate.calls} time(s): estimated ${r.estimate.cost === null ? 'cost unknown (no price for this model)' : `$${r.estimate.cost.toFixed(4)}`}, spent ${r.estimated_cost ? `$${r.estimated_cost.toFixed(4)}` : '$0 (or unpriced)'} · ${r.input_tokens} in / ${r.output_tokens} out tokens`,
            ]
          : []),
        ...(r.skills.length === 0 && r.skipped.length === 0
          ? [
              'No skill has trigger evals: add evals/trigger-evals.json ([{"query": "…", "should_trigger": true}, …]) to a skill\'s folder.',
            ]
          : []),
        ...r.skills.flatMap((s) => [
          `${s.name} [${s.scope}] ${s.version}: ${s.total} queries (${s.positives} should fire, ${s.negatives} should not)`,
          `  phase 1: recall ${pct(s.phase1.recall)}${change(s.phase1.recall, s.previous?.phase1.recall)}, precision ${pct(s.phase1.precision)}${change(s.phase1.precision, s.previous?.phase1.precision)}`,
          ...(s.turn
            ? [
                `  turn:    recall ${pct(s.turn.recall)}${change(s.turn.recall, s.previous?.turn?.recall)}, precision ${pct(s.turn.precision)}${change(s.turn.precision, s.previous?.turn?.precision)}`,
              ]
            : []),
          ...s.results
            .filter((q) => !q.passed)
            .map(
              (q) =>
                `  miss ${q.should_trigger ? 'should fire    ' : 'should not fire'} ${JSON.stringify(q.query.slice(0, 70))}: ${q.rank === null ? 'not ranked' : `rank ${q.rank}, score ${q.score ?? '–'}`}${q.model_chose === null ? '' : q.model_chose ? ', the model chose it' : `, the model chose ${q.model_choice ?? 'none'}`}`,
            ),
        ]),
        ...r.skipped.map((x) => `${x.name}: skipped — ${x.reason}`),
        ...below.map((s) => `${s.name} is below the required rate`),
      ].join('\n'),
    );
  });
  registerImproveTriggers(skills, ctx);
}

/** `skills improve-triggers NAME`: the description loop on the skill's trigger evals. */
export function registerImproveTriggers(skills: Command, ctx: CliContext): void {
  addLlmOptions(
    skills
      .command('improve-triggers')
      .description(
        "propose a better description and trigger phrases from the skill's trigger evals: the model sees two thirds of them with what phase 1 gets wrong (every third eval is held out from it), each proposal is measured by phase 1 against the catalog as it is, and the best one is checked on the held-out third. Nothing is saved unless --apply (a new patch version, through the same trigger-regression check as a save). Exit 0 a better proposal (or --apply saved it), 1 none better (or no model), 2 invalid input",
      )
      .argument('<name>', 'the skill (it needs 6 or more trigger evals, some that should fire and some not)')
      .addOption(scopeOption('store of the skill'))
      .option('--rounds <n>', 'proposals to try at most, 1 to 5 (default 3)')
      .option('--apply', 'save the best proposal as a new version when the held-out evals confirm it'),
    { configured: true },
  ).action(async (name: string, o: Record<string, unknown>) => {
    const rounds = o.rounds === undefined ? undefined : Number(o.rounds);
    if (rounds !== undefined && !(Number.isInteger(rounds) && rounds >= 1 && rounds <= 5))
      throw new AppError('USAGE', '--rounds must be a whole number from 1 to 5');
    const llm = await llmFromFlags(ctx, o);
    const scope = o.scope as SkillScope | undefined;
    const { r, saved } = await withClient(
      ctx,
      async (c) => {
        const r = await c.invoke('skills/improve-triggers', {
          name,
          ...(scope ? { scope } : {}),
          ...(rounds !== undefined ? { rounds } : {}),
        });
        if (!o.apply || r.verdict !== 'better' || !r.best) return { r, saved: null };
        const exported = await c.invoke('skills/export-package', { name: r.name, scope: r.scope });
        const pkg = JSON.parse(exported.text) as Record<string, unknown>;
        const { version: _v, ...rest } = pkg;
        const res = await c.invoke('skills/save-package', {
          package: { ...rest, description: r.best.description, trigger_phrases: r.best.trigger_phrases },
          scope: r.scope,
        });
        return { r, saved: res };
      },
      llm === null ? { llm: 'configured' } : { llm },
    );
    if (r.verdict !== 'better' || (o.apply && !saved?.saved)) ctx.setExitCode(1);
    const pct = (x: number | null) => (x === null ? '–' : `${Math.round(x * 100)}%`);
    const rates = (x: { recall: number | null; precision: number | null }) =>
      `recall ${pct(x.recall)}, precision ${pct(x.precision)}`;
    ctx.print(
      {
        ...r,
        ...(o.apply
          ? { saved: saved?.saved ?? null, trigger_regression: saved?.trigger_regression ?? [] }
          : {}),
      },
      () =>
        [
          `${r.name} [${r.scope}]: ${r.train} trigger evals shown to ${r.model}, ${r.held_out} held out · ${r.rounds.length} proposal(s) · ${r.input_tokens} in / ${r.output_tokens} out tokens${r.estimated_cost ? ` · $${r.estimated_cost.toFixed(4)}` : ''}`,
          `  now:      train ${rates(r.before.train)} · held out ${rates(r.before.held_out)}`,
          ...(r.best
            ? [
                `  proposed: train ${rates(r.best.train)} · held out ${rates(r.best.held_out)}`,
                `  description: ${r.best.description}`,
                `  trigger phrases: ${r.best.trigger_phrases.length ? r.best.trigger_phrases.map((p) => JSON.stringify(p)).join(', ') : '(none)'}`,
              ]
            : []),
          r.verdict === 'better'
            ? o.apply
              ? saved?.saved
                ? `Saved as ${saved.saved.version}.`
                : 'Not saved: the save was held by the trigger-regression check (see --json).'
              : `Better on the held-out evals too. Save it with: skilldesk skills improve-triggers ${JSON.stringify(r.name)} --apply`
            : r.verdict === 'held_out_worse'
              ? 'Not better: the proposal fits the evals it saw but decides more held-out evals wrongly. Add trigger evals in the words users write, then try again.'
              : r.verdict === 'not_confirmed'
                ? 'Not confirmed: the proposal fixes the evals it saw, but the held-out evals it got wrong stay wrong (it fits the examples, not the requests). Try again, or add trigger evals in the words users write.'
                : r.rounds.length === 0 &&
                    r.best === null &&
                    r.before.train.false_negatives + r.before.train.false_positives === 0
                  ? 'Nothing to fix: phase 1 already decides every train eval rightly.'
                  : 'No proposal did better than the current description.',
        ].join('\n'),
    );
  });
}

/**
 * Write a run's results as skill-creator's iteration folder: `<out>/iteration-<N>/`, N one past the
 * highest there (earlier iterations are kept, as skill-creator compares them). Returns the folder.
 */
export async function writeEvalWorkspace(out: string, r: EvalSkillRes): Promise<string> {
  const [{ evalWorkspaceFiles }, { writeFileAtomic }] = await Promise.all([skillsModule(), storeModule()]);
  mkdirSync(out, { recursive: true });
  const taken = readdirSync(out)
    .map((f) => /^iteration-(\d+)$/.exec(f)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number);
  const dir = join(out, `iteration-${Math.max(0, ...taken) + 1}`);
  for (const f of evalWorkspaceFiles(r, { timestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') })) {
    const file = join(dir, f.path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileAtomic(file, f.content);
  }
  return dir;
}
