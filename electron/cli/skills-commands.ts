import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { matchSkills } from '../activation/phase1.js';
import { AppError } from '../contract/errors.js';
import {
  type CatalogEntry,
  exportAgentSkill,
  exportJson,
  importPackages,
  type LoadedPackage,
  limitsFrom,
  loadPackages,
  openCatalog,
  type SkillCatalog,
  skillToPackage,
} from '../skills/index.js';
import type { Scope } from '../store/stores.js';
import type { CliContext } from './context.js';

/** Parse a positive integer option. */
export function positiveInt(name: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0)
      throw new InvalidArgumentError(`${name} must be a positive whole number`);
    return n;
  };
}

const scopeOption = (desc: string) => new Option('--scope <scope>', desc).choices(['workspace', 'account']);

/** Open the catalog for a command, closing it when the action ends. */
async function withCatalog<T>(
  ctx: CliContext,
  opts: { createWorkspace?: boolean },
  fn: (c: SkillCatalog) => T | Promise<T>,
): Promise<T> {
  const g = ctx.globals();
  const catalog = openCatalog({ home: g.home, workspace: g.workspace, env: ctx.env }, opts);
  try {
    return await fn(catalog);
  } finally {
    catalog.close();
  }
}

function requireScope(catalog: SkillCatalog, scope: Scope) {
  const store = catalog.store(scope);
  if (!store) throw new AppError('USAGE', 'the workspace scope needs --workspace DIR');
  return store;
}

function kindsLabel(e: CatalogEntry): string {
  return e.artifact_kinds.join(', ');
}

/** The `skills` command group: import, list, show, export, delete, match. */
export function registerSkillsCommands(program: Command, ctx: CliContext): void {
  const skills = program
    .command('skills')
    .description('manage and match skills in the account and workspace stores');

  skills
    .command('import')
    .description(
      'import skill packages: .json files, Agent Skills folders (SKILL.md), folders of them, or .zip files',
    )
    .argument('<paths...>', 'files or folders to import (all or nothing)')
    .addOption(
      scopeOption('store to import into (default: workspace when --workspace is given, else account)'),
    )
    .option('--force', 'accept an older version over a newer one', false)
    .option(
      '--max-size <bytes>',
      'largest package accepted (default 10 MiB or $SKILLDESK_MAX_IMPORT_BYTES)',
      positiveInt('--max-size'),
    )
    .action(async (paths: string[], o: { scope?: Scope; force: boolean; maxSize?: number }) => {
      const g = ctx.globals();
      const scope: Scope = o.scope ?? (g.workspace ? 'workspace' : 'account');
      if (scope === 'workspace' && !g.workspace)
        throw new AppError('USAGE', '--scope workspace needs --workspace DIR');
      const limits = limitsFrom(ctx.env, o.maxSize);
      // Read and validate everything before any store is opened: bad input writes nothing.
      const loaded: LoadedPackage[] = [];
      for (const p of paths) loaded.push(...(await loadPackages(resolve(p), limits)));
      const outcomes = await withCatalog(ctx, { createWorkspace: scope === 'workspace' }, (c) =>
        importPackages(requireScope(c, scope), loaded, { force: o.force }),
      );
      ctx.print({ imported: outcomes }, () =>
        outcomes
          .map((r) => {
            const what =
              r.action === 'updated'
                ? `updated ${r.previous_version} → ${r.version}`
                : r.action === 'unchanged'
                  ? `unchanged (${r.version} already installed)`
                  : `created ${r.version}`;
            return `${r.name} [${r.scope}]: ${what}, ${r.artifacts} artifact${r.artifacts === 1 ? '' : 's'}`;
          })
          .join('\n'),
      );
    });

  skills
    .command('list')
    .description('list the merged catalog; account skills hidden by a workspace skill are marked overridden')
    .addOption(scopeOption('only this store'))
    .action(async (o: { scope?: Scope }) => {
      await withCatalog(ctx, {}, (c) => {
        const all = c.listAll({ includeOverridden: true }).filter((e) => !o.scope || e.scope === o.scope);
        const items = all.map((e) => ({
          name: e.name,
          scope: e.scope,
          version: e.version,
          source: e.source,
          description: e.description,
          tags: e.tags ?? [],
          artifact_kinds: e.artifact_kinds,
          overridden: e.overridden_by !== undefined,
          ...(e.overridden_by ? { overridden_by: e.overridden_by } : {}),
          ...(e.overrides ? { overrides: e.overrides } : {}),
        }));
        ctx.print({ skills: items }, () => {
          if (items.length === 0) return 'No skills yet. Import one with: skilldesk skills import PATH';
          const width = Math.min(40, Math.max(...all.map((e) => e.name.length)));
          return all
            .map((e) => {
              const flag = e.overridden_by
                ? '  (overridden by workspace)'
                : e.overrides
                  ? '  (overrides account)'
                  : '';
              return `${e.name.padEnd(width)}  ${e.scope.padEnd(9)}  ${e.version.padEnd(8)}  ${kindsLabel(e)}${flag}`;
            })
            .join('\n');
        });
      });
    });

  skills
    .command('show')
    .description('show one skill and its artifacts (the workspace one when both scopes have it)')
    .argument('<name>', 'skill name')
    .addOption(scopeOption('look only in this store'))
    .action(async (name: string, o: { scope?: Scope }) => {
      await withCatalog(ctx, {}, (c) => {
        if (o.scope) requireScope(c, o.scope);
        const found = c.resolve(name, o.scope);
        if (!found) throw notFound(name, o.scope);
        const { skill, scope } = found;
        const overridden = found.overridden_by !== undefined;
        const overrides = scope === 'workspace' && c.account.repo.getSummaryByName(skill.name) !== null;
        const pkg = skillToPackage(skill);
        ctx.print(
          {
            skill: {
              ...pkg,
              scope,
              overridden,
              overrides: overrides ? 'account' : undefined,
              created_at: skill.created_at,
              updated_at: skill.updated_at,
            },
          },
          () => {
            const lines = [
              `${skill.name} ${skill.version}  [${scope}${overridden ? ', overridden by workspace' : overrides ? ', overrides account' : ''}]`,
              skill.description,
            ];
            if (skill.when) lines.push(`When: ${skill.when}`);
            if (skill.tags?.length) lines.push(`Tags: ${skill.tags.join(', ')}`);
            if (skill.trigger_phrases?.length)
              lines.push(`Triggers: ${skill.trigger_phrases.map((t) => `"${t}"`).join(', ')}`);
            if (skill.intent_patterns?.length) lines.push(`Intents: ${skill.intent_patterns.join(', ')}`);
            lines.push('', 'Artifacts:');
            for (const a of skill.artifacts) {
              const variant = a.model_variant ? ` (${a.model_variant})` : '';
              const size = `${a.content.length} chars${a.state_blob ? `, state ${a.state_blob.length} bytes` : ''}`;
              lines.push(
                `  ${String(a.ordinal).padStart(2)}. ${a.kind.padEnd(15)} ${a.name}${variant}  ${size}`,
              );
            }
            return lines.join('\n');
          },
        );
      });
    });

  skills
    .command('export')
    .description('export a skill as a JSON package (stdout or -o FILE) or an Agent Skills folder')
    .argument('<name>', 'skill name')
    .option('-o, --output <path>', 'file (json) or folder (agent-skill) to write')
    .addOption(
      new Option('--format <format>', 'package format').choices(['json', 'agent-skill']).default('json'),
    )
    .addOption(scopeOption('export from this store'))
    .option('--force', 'overwrite an existing folder', false)
    .action(
      async (
        name: string,
        o: { output?: string; format: 'json' | 'agent-skill'; scope?: Scope; force: boolean },
      ) => {
        await withCatalog(ctx, {}, (c) => {
          if (o.scope) requireScope(c, o.scope);
          const found = c.resolve(name, o.scope);
          if (!found) throw notFound(name, o.scope);
          if (o.format === 'json') {
            const text = exportJson(found.skill);
            if (!o.output) {
              ctx.io.stdout(text);
              return;
            }
            writeFileSync(resolve(o.output), text);
            ctx.print(
              {
                exported: {
                  name: found.skill.name,
                  scope: found.scope,
                  format: 'json',
                  path: resolve(o.output),
                },
              },
              () => `Wrote ${resolve(o.output!)}`,
            );
            return;
          }
          const r = exportAgentSkill(found.skill, o.output, { force: o.force });
          if (r.skipped.length > 0 && !ctx.globals().json) {
            ctx.io.stderr(
              `note: the Agent Skills format has no place for: ${r.skipped.join(', ')} (export --format json keeps them)\n`,
            );
          }
          ctx.print(
            {
              exported: {
                name: found.skill.name,
                scope: found.scope,
                format: 'agent-skill',
                path: r.dir,
                files: r.files,
                skipped: r.skipped,
              },
            },
            () => `Wrote ${r.dir} (${r.files.length} file${r.files.length === 1 ? '' : 's'})`,
          );
        });
      },
    );

  skills
    .command('delete')
    .description('delete a skill (and its artifacts) from one store')
    .argument('<name>', 'skill name')
    .addOption(scopeOption('store to delete from').makeOptionMandatory())
    .action(async (name: string, o: { scope: Scope }) => {
      await withCatalog(ctx, {}, (c) => {
        const store = requireScope(c, o.scope);
        const skill = store.repo.getSummaryByName(name);
        if (!skill) throw notFound(name, o.scope);
        store.repo.deleteSkill(skill.id);
        const revealed = o.scope === 'workspace' ? c.account.repo.getSummaryByName(skill.name) : null;
        ctx.print(
          { deleted: { name: skill.name, scope: o.scope, version: skill.version } },
          () =>
            `Deleted ${skill.name} from the ${o.scope} store.${revealed ? ` The account skill of that name (${revealed.version}) is active again.` : ''}`,
        );
      });
    });

  skills
    .command('match')
    .description('rank skills for a message (phase-1 activation: deterministic BM25 + exact trigger phrases)')
    .argument('<message>', 'the user message')
    .option('--limit <n>', 'how many matches', positiveInt('--limit'), 5)
    .action(async (message: string, o: { limit: number }) => {
      await withCatalog(ctx, {}, (c) => {
        const t = performance.now();
        const matches = matchSkills(c, message, { limit: o.limit });
        const took = performance.now() - t;
        ctx.print({ matches, took_ms: Math.round(took * 1000) / 1000 }, () => {
          if (matches.length === 0) return `No skill matches that message (${took.toFixed(2)} ms).`;
          const width = Math.max(...matches.map((m) => m.name.length));
          return [
            ...matches.map(
              (m, i) =>
                `${String(i + 1).padStart(2)}. ${m.name.padEnd(width)}  ${m.scope.padEnd(9)}  ${m.score.toFixed(4)}  ${m.matched_on.join(', ')}`,
            ),
            `(${took.toFixed(2)} ms)`,
          ].join('\n');
        });
      });
    });
}

function notFound(name: string, scope?: Scope): AppError {
  return new AppError(
    'NOT_FOUND',
    `no skill named "${name}"${scope ? ` in the ${scope} store` : ''}; see: skilldesk skills list`,
    { name },
  );
}
