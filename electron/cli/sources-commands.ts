import { existsSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { AppError } from '../contract/errors.js';
import type { SkillCatalog } from '../skills/index.js';
import type { CheckResult, SkillCheck, SourcesContext, SourceView, UpdateResult } from '../sources/index.js';
import type { SkillStore } from '../store/index.js';
import type { CliContext } from './context.js';
import { llmFromFlags } from './dispatch-commands.js';
import { addLlmOptions } from './llm-commands.js';
import { describeTriggerRegression } from './skills-commands.js';

// The modules the commands run on, loaded by each action before it starts (not at start-up, so
// other commands and `--help` never load them); helpers reach them through `core()`.
let loaded:
  | (typeof import('../sources/index.js') &
      Pick<typeof import('../skills/index.js'), 'limitsFrom' | 'openCatalog'> &
      Pick<typeof import('../store/index.js'), 'resolveHome'> &
      Pick<typeof import('../activation/index.js'), 'triggerRegressions'>)
  | undefined;
async function loadCore(): Promise<void> {
  if (loaded) return;
  const [sources, skills, store, activation] = await Promise.all([
    import('../sources/index.js'),
    import('../skills/index.js'),
    import('../store/index.js'),
    import('../activation/index.js'),
  ]);
  loaded = {
    ...sources,
    limitsFrom: skills.limitsFrom,
    openCatalog: skills.openCatalog,
    resolveHome: store.resolveHome,
    triggerRegressions: activation.triggerRegressions,
  };
}
function core(): NonNullable<typeof loaded> {
  if (!loaded) throw new Error('a sources command ran before its modules were loaded');
  return loaded;
}

/**
 * Exit codes of `sources` beyond 0/1/2: a source could not be reached; high findings not accepted;
 * skills held for review because their update lowers their trigger rates.
 */
export const SOURCES_EXIT = { UNREACHABLE: 3, RISK_NOT_ACCEPTED: 4, HELD_FOR_REVIEW: 5 } as const;

type Scope = SkillStore['scope'];

const scopeOpt = () =>
  new Option('--scope <scope>', 'the store of the source').choices(['workspace', 'account']);

/** Open the stores, run `fn` with the context of one store, close. */
async function withSources<T>(
  ctx: CliContext,
  scope: Scope,
  create: boolean,
  fn: (s: SourcesContext, catalog: SkillCatalog) => Promise<T> | T,
): Promise<T> {
  const g = ctx.globals();
  if (scope === 'workspace' && !g.workspace)
    throw new AppError('USAGE', 'the workspace scope needs --workspace DIR');
  await loadCore();
  const catalog = core().openCatalog(
    { home: g.home, workspace: g.workspace, env: ctx.env },
    { createWorkspace: create },
  );
  try {
    const store = catalog.store(scope);
    if (!store)
      throw new AppError('NOT_FOUND', `the workspace ${g.workspace} has no skills store yet, so no sources`);
    return await fn(
      {
        store,
        workspace: scope === 'account' ? catalog.workspace : null,
        home: core().resolveHome(g.home, ctx.env),
        env: ctx.env,
        limits: core().limitsFrom(ctx.env),
        triggerRegressions: (names, apply, incoming) =>
          core().triggerRegressions(catalog, scope, names, apply, incoming),
      },
      catalog,
    );
  } finally {
    catalog.close();
  }
}

const defaultScope = (ctx: CliContext, scope?: Scope): Scope =>
  scope ?? (ctx.globals().workspace ? 'workspace' : 'account');

/** The scope holding source `name`: the one given, else the workspace's, else the account's. */
async function scopeOf(ctx: CliContext, name: string, scope?: Scope): Promise<Scope> {
  if (scope) return scope;
  if (!ctx.globals().workspace) return 'account';
  const inWorkspace = await withSources(ctx, 'account', false, (_s, catalog) => {
    if (!catalog.workspace) return false;
    return core()
      .listSourceViews({ ..._s, store: catalog.workspace })
      .some((v) => v.id === name);
  });
  return inWorkspace ? 'workspace' : 'account';
}

const STATUS_MARK: Record<SkillCheck['status'], string> = {
  added: '+',
  changed: '~',
  unchanged: '=',
  removed: '-',
  conflict: '!',
};

/** The human report of a check. */
export function formatCheck(r: CheckResult, showDiff: boolean): string {
  const lines: string[] = [];
  const src = `${r.source.id} [${r.source.scope}] ${r.source.url}${r.source.ref ? ` @ ${r.source.ref}` : ''}`;
  if (!r.reachable) {
    lines.push(`${src}: could not be reached (${r.error}); what is installed is kept`);
    return lines.join('\n');
  }
  lines.push(
    `${src}: revision ${r.revision}${r.not_modified ? ' (not modified)' : ''}${r.installed_revision ? `, installed ${r.installed_revision}` : ', nothing installed yet'}`,
  );
  for (const s of r.skills) {
    const versions =
      s.status === 'changed' && s.installed_version !== s.upstream_version
        ? ` ${s.installed_version} → ${s.upstream_version}`
        : ` ${s.upstream_version ?? s.installed_version ?? ''}`;
    lines.push(
      `${STATUS_MARK[s.status]} ${s.name}${versions} (${s.status}${s.tampered ? ', CHANGED IN THE STORE' : ''}${s.overridden_by_workspace ? ', hidden by a workspace skill' : ''})`,
    );
    if (s.note) lines.push(`    ${s.note}`);
    if (s.description && (s.status === 'added' || s.status === 'changed'))
      lines.push(`    ${s.description.split('\n')[0]!.slice(0, 200)}`);
    if (s.script_runtime && (s.status === 'added' || s.status === 'changed'))
      lines.push(`    scripts run: ${s.script_runtime}`);
    if (s.scan && s.scan.findings.length > 0 && s.status !== 'unchanged') {
      for (const f of s.scan.findings)
        lines.push(`    ${f.severity.toUpperCase()} ${f.rule} at ${f.where}: ${f.message} — ${f.excerpt}`);
      if (s.needs_risk_acceptance) lines.push('    high findings: installing it needs --accept-risk');
    }
    if (s.review && s.status !== 'unchanged') {
      lines.push(
        s.review.verdict
          ? `    model review (${s.review.model}): ${s.review.verdict}${s.review.reasons.length ? ` — ${s.review.reasons.join('; ')}` : ''}`
          : `    model review (${s.review.model}) failed: ${s.review.error}`,
      );
    }
    if (s.permission_changes.length > 0 && s.status !== 'unchanged') {
      for (const c of s.permission_changes)
        lines.push(
          `    permission ${c.permission}: ${[...c.added.map((x) => `+${x}`), ...c.removed.map((x) => `-${x}`)].join(' ')}`,
        );
    }
    if (showDiff && s.diff && s.status !== 'added') {
      for (const f of s.diff.fields)
        lines.push(`    field ${f.field}: ${JSON.stringify(f.from)} → ${JSON.stringify(f.to)}`);
      for (const a of s.diff.artifacts) {
        if (a.change === 'unchanged') continue;
        lines.push(`    artifact ${a.name} (${a.kind}) ${a.change}`);
        for (const l of a.patch.split('\n').filter(Boolean)) lines.push(`      ${l}`);
      }
    }
  }
  for (const i of r.invalid) lines.push(`? ${i.file}: not loaded: ${i.error}`);
  lines.push(
    r.updates_available > 0
      ? `${r.updates_available} update${r.updates_available === 1 ? '' : 's'}: accept with \`skilldesk sources update ${r.source.id} --all\` or --skill NAME`
      : 'up to date',
  );
  return lines.join('\n');
}

function formatUpdate(r: UpdateResult): string {
  const lines: string[] = [];
  if (r.needs_risk_acceptance.length > 0) {
    lines.push(
      'nothing installed: these skills have high findings; read them, then pass --accept-risk or leave them out:',
    );
    for (const s of r.needs_risk_acceptance) {
      lines.push(`  ${s.name}`);
      for (const f of s.findings) lines.push(`    ${f.rule} at ${f.where}: ${f.message} — ${f.excerpt}`);
    }
  }
  for (const i of r.installed) {
    lines.push(`${i.name}: ${i.action} ${i.version} from ${r.source} @ ${r.revision}`);
    for (const p of core().describePermissions(i.permissions)) lines.push(`    ${p}`);
  }
  for (const h of r.held_for_review)
    lines.push(
      `held for review: ${describeTriggerRegression(h)}`,
      `    install it anyway with --accept-regression`,
    );
  for (const s of r.skipped) lines.push(`${s.name}: skipped: ${s.reason}`);
  for (const n of r.removed_upstream) lines.push(`${n}: removed upstream; kept as installed`);
  if (lines.length === 0) lines.push('nothing to update');
  return lines.join('\n');
}

/**
 * A relative path to an existing folder, as typed in a shell, made absolute; anything else is
 * passed on unchanged (and a relative path that is not there is refused by the core).
 */
function localPath(url: string): string {
  if (url.startsWith('-') || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(url) || isAbsolute(url)) return url;
  const abs = resolve(url);
  return existsSync(abs) && statSync(abs).isDirectory() ? abs : url;
}

/** The `sources` command group. */
export function registerSourcesCommands(program: Command, ctx: CliContext): void {
  const sources = program
    .command('sources')
    .description(
      'subscribe to git repositories and HTTP catalogs of skills; check, review and accept their updates',
    );

  sources
    .command('add')
    .description(
      'subscribe to a git repository (URL or absolute path) or an HTTP catalog index (.json); checks it, installs nothing',
    )
    .argument('<url>', 'git URL, absolute path of a local repository, or http(s) URL of a catalog index')
    .option('--ref <branch-or-tag>', 'git branch or tag (default: the default branch)')
    .option('--path <folder>', 'folder inside the repository holding the skills')
    .option('--name <name>', 'name of the source (default: from the URL)')
    .addOption(
      new Option('--kind <kind>', 'git or catalog (default: a .json http URL is a catalog)').choices([
        'git',
        'catalog',
      ]),
    )
    .addOption(scopeOpt())
    .option('--no-diff', 'leave the per-skill diffs out of the human report')
    .action(
      async (
        url: string,
        o: {
          ref?: string;
          path?: string;
          name?: string;
          kind?: 'git' | 'catalog';
          scope?: Scope;
          diff: boolean;
        },
      ) => {
        const scope = defaultScope(ctx, o.scope);
        const r = await withSources(ctx, scope, true, (s) =>
          core().addSource(s, { url: localPath(url), ref: o.ref, path: o.path, id: o.name, kind: o.kind }),
        );
        ctx.print(r, () => `added ${r.source.id}\n${formatCheck(r, o.diff)}`);
      },
    );

  sources
    .command('list')
    .description('list the sources of the account and the workspace')
    .addOption(scopeOpt())
    .action(async (o: { scope?: Scope }) => {
      await loadCore();
      const g = ctx.globals();
      const scopes: Scope[] = o.scope ? [o.scope] : g.workspace ? ['workspace', 'account'] : ['account'];
      const all: SourceView[] = [];
      for (const scope of scopes) {
        all.push(
          ...(await withSources(ctx, 'account', false, (s, catalog) => {
            const store = catalog.store(scope);
            return store ? core().listSourceViews({ ...s, store }) : [];
          })),
        );
      }
      ctx.print({ sources: all }, () =>
        all.length === 0
          ? 'no sources; add one with `skilldesk sources add URL`'
          : all
              .map(
                (v) =>
                  `${v.id} [${v.scope}] ${v.kind} ${v.url}${v.ref ? ` @ ${v.ref}` : ''}: ${v.installed.length} installed${v.revision ? ` at ${v.revision}` : ''}${v.check_error ? ` (last check failed: ${v.check_error})` : ''}`,
              )
              .join('\n'),
      );
    });

  sources
    .command('remove')
    .description('forget a source; the skills it installed stay as they are')
    .argument('<name>', 'the source')
    .addOption(scopeOpt())
    .action(async (name: string, o: { scope?: Scope }) => {
      await loadCore();
      const scope = await scopeOf(ctx, name, o.scope);
      const r = await withSources(ctx, scope, false, (s) => core().removeSource(s, name));
      ctx.print(
        r,
        () =>
          `removed ${r.removed}${r.kept_skills.length ? `; kept its skills: ${r.kept_skills.join(', ')}` : ''}`,
      );
    });

  addLlmOptions(
    sources
      .command('check')
      .description(
        'fetch sources and list added, changed and removed skills with diffs, scan findings and permissions; changes nothing',
      )
      .argument('[names...]', 'sources to check (default: all)')
      .addOption(scopeOpt())
      .option('--no-diff', 'leave the per-skill diffs out of the human report')
      .option(
        '--review',
        'also ask the configured model (or --provider …) to review each added or changed skill',
        false,
      ),
  ).action(
    async (
      names: string[],
      o: { scope?: Scope; diff: boolean; review: boolean } & Record<string, unknown>,
    ) => {
      await loadCore();
      const g = ctx.globals();
      const reviewer = o.review ? await llmFromFlags(ctx, o) : null;
      if (o.review && !reviewer)
        throw new AppError(
          'LLM_NOT_CONFIGURED',
          '--review needs a model: pass --provider (and --model), or set SKILLDESK_PROVIDER',
        );
      const scopes: Scope[] = o.scope ? [o.scope] : g.workspace ? ['workspace', 'account'] : ['account'];
      const results: CheckResult[] = [];
      for (const scope of scopes) {
        const got = await withSources(ctx, 'account', false, async (s, catalog) => {
          const store = catalog.store(scope);
          if (!store) return [];
          const c = { ...s, store, workspace: scope === 'account' ? catalog.workspace : null };
          const ids = core()
            .listSourceViews(c)
            .map((v) => v.id)
            .filter((id) => names.length === 0 || names.includes(id));
          const out: CheckResult[] = [];
          for (const id of ids) out.push(await core().checkSource(c, id, { review: reviewer }));
          return out;
        });
        results.push(...got);
      }
      const missing = names.filter((n) => !results.some((r) => r.source.id === n));
      if (missing.length > 0)
        throw new AppError(
          'NOT_FOUND',
          `no source named ${missing.map((m) => `"${m}"`).join(', ')}; see \`skilldesk sources list\``,
        );
      if (results.some((r) => !r.reachable)) ctx.setExitCode(SOURCES_EXIT.UNREACHABLE);
      ctx.print({ results }, () =>
        results.length === 0
          ? 'no sources; add one with `skilldesk sources add URL`'
          : results.map((r) => formatCheck(r, o.diff)).join('\n\n'),
      );
    },
  );

  sources
    .command('update')
    .description('install what the last check showed: the named skills, or --all added and changed ones')
    .argument('<name>', 'the source')
    .option('--skill <name...>', 'accept only these skills (repeatable)')
    .option('--all', 'accept every added or changed skill', false)
    .option('--accept-risk', 'install skills with high scan findings too', false)
    .option(
      '--accept-regression',
      'install skills whose update lowers their trigger recall or precision too (held for review otherwise)',
      false,
    )
    .addOption(scopeOpt())
    .action(
      async (
        name: string,
        o: { skill?: string[]; all: boolean; acceptRisk: boolean; acceptRegression: boolean; scope?: Scope },
      ) => {
        await loadCore();
        const scope = await scopeOf(ctx, name, o.scope);
        let r: UpdateResult;
        try {
          r = await withSources(ctx, scope, false, (s) =>
            core().acceptUpdates(s, name, {
              skills: o.skill,
              all: o.all,
              accept_risk: o.acceptRisk,
              accept_regression: o.acceptRegression,
            }),
          );
        } catch (e) {
          if (!(e instanceof core().SourceUnreachable)) throw e;
          ctx.setExitCode(SOURCES_EXIT.UNREACHABLE);
          ctx.print(
            { source: name, reachable: false, error: e.message, installed: [] },
            () => `${name} could not be reached (${e.message}); nothing changed`,
          );
          return;
        }
        if (r.needs_risk_acceptance.length > 0) ctx.setExitCode(SOURCES_EXIT.RISK_NOT_ACCEPTED);
        else if (r.held_for_review.length > 0) ctx.setExitCode(SOURCES_EXIT.HELD_FOR_REVIEW);
        ctx.print(r, () => formatUpdate(r));
      },
    );

  sources
    .command('verify')
    .description('check every skill installed from a source against the SHA-256 of its accepted files')
    .action(async () => {
      await loadCore();
      const g = ctx.globals();
      const problems = await withSources(ctx, 'account', false, (_s, catalog) =>
        [catalog.account, ...(catalog.workspace ? [catalog.workspace] : [])].flatMap((store) =>
          core()
            .verifyPins(store)
            .map((p) => ({ ...p, scope: store.scope })),
        ),
      );
      if (problems.length > 0) ctx.setExitCode(1);
      void g;
      ctx.print({ changed: problems }, () =>
        problems.length === 0
          ? 'every installed skill matches what was accepted'
          : problems
              .map(
                (p) =>
                  `${p.name} [${p.scope}] from ${p.source}: changed outside an accepted update (${p.changed_files.join(', ')})`,
              )
              .join('\n'),
      );
    });
}
