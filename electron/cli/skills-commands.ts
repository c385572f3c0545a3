import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Argument, type Command, InvalidArgumentError, Option } from 'commander';
import { AppError } from '../contract/errors.js';
import type {
  ImportOutcomeView,
  ImportPackageRes,
  SkillListItem,
  SkillScope,
  TriggerRegressionView,
} from '../contract/skills.js';
import type {
  FoundCollection,
  LoadedPackage,
  PluginPart,
  PluginServer,
  SkippedPath,
} from '../skills/index.js';
import type { CoreClient } from '../transport/index.js';
import { type CliContext, EXIT } from './context.js';
import { withClient } from './host.js';

const storeModule = () => import('../store/index.js');
const skillsModule = () => import('../skills/index.js');

/** Parse a positive integer option. */
export function positiveInt(name: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0)
      throw new InvalidArgumentError(`${name} must be a positive whole number`);
    return n;
  };
}

/** Parse a whole-number option that may be 0. */
function nonNegativeInt(name: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(n))
      throw new InvalidArgumentError(`${name} must be a whole number (0 or more)`);
    return n;
  };
}

const plural = (n: number, what: string) => `${n.toLocaleString('en-US')} ${what}${n === 1 ? '' : 's'}`;

/** Most skipped paths printed one by one (the JSON report has them all). */
const SKIPPED_LINES = 20;

/** What an import passed over: each path with why, the too-deep ones counted when many. */
function skippedLines(skipped: Array<SkippedPath & { import: string }>): string[] {
  if (skipped.length === 0) return [];
  const lines = [`Skipped ${plural(skipped.length, 'path')}:`];
  for (const x of skipped.slice(0, SKIPPED_LINES)) lines.push(`  ${x.import}/${x.path}: ${x.message}`);
  if (skipped.length > SKIPPED_LINES)
    lines.push(`  … ${skipped.length - SKIPPED_LINES} more (--json lists them all)`);
  return lines;
}

/** The `--scope workspace|account` option. */
export const scopeOption = (desc: string) =>
  new Option('--scope <scope>', desc).choices(['workspace', 'account']);

/** `--scope workspace` without `--workspace` is a usage error (exit 2), not a missing skill. */
function requireWorkspaceFor(ctx: CliContext, scope: SkillScope | undefined): void {
  if (scope === 'workspace' && !ctx.globals().workspace)
    throw new AppError('USAGE', 'the workspace scope needs --workspace DIR');
}

function kindsLabel(e: SkillListItem): string {
  return e.artifact_kinds.join(', ');
}

/** Most lines of one artifact's diff printed by an import (the JSON report has them all). */
const DIFF_LINES = 40;

/** The human lines of an import: per skill what happened, and for an update what changed. */
export function formatImported(outcomes: ImportPackageRes['imported'], dryRun = false): string {
  const lines: string[] = [];
  for (const r of outcomes) {
    const would = dryRun ? 'would be ' : '';
    const what =
      r.action === 'updated'
        ? `${would}updated ${r.previous_version} → ${r.version}${r.version_bumped ? ' (content changed; patch version raised)' : ''}`
        : r.action === 'unchanged'
          ? `unchanged (the same content is installed as ${r.version})`
          : `${would}created ${r.version}`;
    lines.push(`${r.name} [${r.scope}]: ${what}, ${r.artifacts} artifact${r.artifacts === 1 ? '' : 's'}`);
    for (const f of r.changes?.fields ?? []) {
      if (f.field === 'version') continue;
      lines.push(`  ${f.field}: ${short(f.from)} → ${short(f.to)}`);
    }
    for (const a of r.changes?.artifacts ?? []) {
      const meta = a.metadata_changed.length > 0 ? ` (metadata: ${a.metadata_changed.join(', ')})` : '';
      lines.push(
        `  ${a.change} ${a.kind} "${a.name}"${a.model_variant ? ` [${a.model_variant}]` : ''}${meta}`,
      );
      if (!a.patch) continue;
      const patch = a.patch.split('\n');
      for (const l of patch.slice(0, DIFF_LINES)) lines.push(`    ${l}`);
      if (patch.length > DIFF_LINES)
        lines.push(`    … ${patch.length - DIFF_LINES} more lines (--json has the whole diff)`);
    }
  }
  if (dryRun) lines.push('Dry run: nothing was written.');
  return lines.join('\n');
}

function short(v: unknown): string {
  const text = v === null || v === undefined ? '(none)' : JSON.stringify(v);
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

/** The `skills` command group: import, list, show, export, delete, match. */
export function registerSkillsCommands(program: Command, ctx: CliContext): void {
  const skills = program
    .command('skills')
    .description('manage and match skills in the account and workspace stores');
  registerImport(skills, ctx);
  registerList(skills, ctx);
  registerShow(skills, ctx);
  registerExport(skills, ctx);
  registerDelete(skills, ctx);
  registerMatch(skills, ctx);
  registerEmbed(skills, ctx);
  registerSet(skills, ctx);
}

/** `skills import`: packages, Agent Skills folders and zips, all or nothing. */
function registerImport(skills: Command, ctx: CliContext): void {
  skills
    .command('import')
    .description(
      'import skill packages: .json files, Agent Skills folders (SKILL.md), folders of them, .zip files, or Agent Plugin folders (plugin.json: its skills, and its MCP servers added disabled)',
    )
    .argument('<paths...>', 'files or folders to import (all or nothing)')
    .addOption(
      scopeOption('store to import into (default: workspace when --workspace is given, else account)'),
    )
    .option(
      '--force',
      "accept an older version over a newer one, replace a built-in skill of the same name, or an update that lowers a skill's trigger recall or precision",
      false,
    )
    .option(
      '--max-size <bytes>',
      'largest package accepted (default 32 MiB or $SKILLDESK_MAX_IMPORT_BYTES)',
      positiveInt('--max-size'),
    )
    .option(
      '--max-files <n>',
      'most files in one skill folder or zip (default 500 or $SKILLDESK_MAX_IMPORT_FILES)',
      positiveInt('--max-files'),
    )
    .option(
      '--dry-run',
      'print what would be created, updated (with the diff) or left unchanged; write nothing',
      false,
    )
    .option(
      '--depth <n>',
      'look for skills at most N folders below a folder being imported (default: any depth)',
      nonNegativeInt('--depth'),
    )
    .option(
      '--install-packages',
      "also fetch the pure-Python packages each skill declares in a requirements.txt (pip, into the account's wheelhouse)",
      false,
    )
    .option(
      '--no-embed',
      "skip computing the imported skills' e5 vectors (matching by meaning); `skills embed` does it later",
    )
    .action(
      async (
        paths: string[],
        o: {
          scope?: SkillScope;
          force: boolean;
          maxSize?: number;
          maxFiles?: number;
          dryRun: boolean;
          installPackages: boolean;
          embed: boolean;
          depth?: number;
        },
      ) => {
        const g = ctx.globals();
        const scope: SkillScope = o.scope ?? (g.workspace ? 'workspace' : 'account');
        if (scope === 'workspace' && !g.workspace)
          throw new AppError('USAGE', '--scope workspace needs --workspace DIR');
        const limits = (await skillsModule()).limitsFrom(ctx.env, o.maxSize, o.maxFiles);
        // Read and validate everything before any store is opened: bad input writes nothing.
        const loaded: LoadedPackage[] = [];
        // An Agent Plugin's MCP servers, added disabled once its skills are in.
        const servers: PluginServer[] = [];
        const plugins: Array<{ name: string; path: string; skills: string[]; not_installed: PluginPart[] }> =
          [];
        const collections: Array<FoundCollection & { import: string }> = [];
        const skipped: Array<SkippedPath & { import: string }> = [];
        for (const p of paths) {
          const abs = resolve(p);
          const c = await (await skillsModule()).loadCollection(abs, limits, { depth: o.depth });
          loaded.push(...c.packages);
          for (const plugin of c.plugins) {
            loaded.push(...plugin.skills);
            servers.push(...plugin.servers);
            plugins.push({
              name: plugin.name,
              path: plugin.dir,
              skills: plugin.skills.map((l) => l.pkg.name),
              not_installed: plugin.not_installed,
            });
          }
          collections.push(...c.collections.map((x) => ({ import: p, ...x })));
          skipped.push(...c.skipped.map((x) => ({ import: p, ...x })));
        }
        const dupe = servers.find(
          (s, i) => servers.findIndex((x) => x.name.toLowerCase() === s.name.toLowerCase()) !== i,
        );
        if (dupe)
          throw new AppError(
            'INVALID_INPUT',
            `two plugins declare an MCP server named "${dupe.name}"; import them one at a time`,
            { name: dupe.name },
          );
        // An Agent Skills name off the standard imports, with a warning on stderr.
        const { networkNotices, packageForChannel } = await skillsModule();
        for (const l of loaded)
          for (const w of [...(l.warnings ?? []), ...networkNotices(l.pkg)])
            ctx.io.stderr(`warning: ${l.file}: ${w.path}: ${w.message}\n`);
        const { imported, trigger_regression, packages, mcp } = await withClient(ctx, async (c) => {
          // An mcp.json that cannot be read stops the import before any skill is written.
          const configured = servers.length > 0 ? await configuredServers(c) : [];
          const r =
            loaded.length > 0
              ? await c.invoke('skills/import-packages', {
                  packages: loaded.map((l) => ({ file_name: l.file, package: packageForChannel(l) })),
                  scope,
                  force: o.force,
                  ...(o.force ? { accept_trigger_regression: true } : {}),
                  ...(o.dryRun ? { dry_run: true } : {}),
                })
              : { imported: [] as ImportOutcomeView[], trigger_regression: undefined };
          // An update that makes a skill fire less reliably imports nothing without --force.
          const regressed = r.trigger_regression ?? [];
          if (regressed.length > 0) {
            ctx.io.stderr(
              `${o.dryRun ? 'would lower' : 'not imported: this would lower'} the trigger rates of ${regressed.length === 1 ? 'a skill' : `${regressed.length} skills`} (phase 1, measured on their trigger evals):\n${regressed.map((x) => describeTriggerRegression(x)).join('\n')}\n${o.dryRun ? '' : 'Pass --force to import anyway.\n'}`,
            );
            ctx.setExitCode(EXIT.FAILURE);
            if (!o.dryRun)
              return { imported: [], trigger_regression: regressed, packages: undefined, mcp: undefined };
          }
          const mcp =
            servers.length > 0 ? await addPluginServers(c, servers, configured, scope, o.dryRun) : undefined;
          // The user's consent to download: only with the flag, only after the import stood.
          const packages = o.installPackages && !o.dryRun ? await installDeclared(c, loaded) : undefined;
          // Vectors now, so the first match does not meet a catalog without them. Embedding brings
          // the phase-1 index up to date and saves it; without it the index is saved here, so a
          // later process (`skills match`, `mcp serve`'s first search_skills) loads it instead of
          // building it (about a second at 10,000 skills).
          if (!o.dryRun && r.imported.length > 0) {
            if (o.embed !== false) await embedWithProgress(c, ctx);
            else await c.invoke('skills/warm-match', {});
          }
          return { imported: r.imported, trigger_regression: r.trigger_regression, packages, mcp };
        });
        const failed = packages?.filter((p) => !p.ok) ?? [];
        for (const f of failed)
          ctx.io.stderr(`warning: ${f.skill}: imported, but its packages were not installed: ${f.error}\n`);
        if (failed.length > 0) ctx.setExitCode(1);
        ctx.print(
          {
            imported,
            ...(trigger_regression?.length ? { trigger_regression } : {}),
            ...(collections.length > 0 ? { collections } : {}),
            ...(skipped.length > 0 ? { skipped } : {}),
            ...(plugins.length > 0 ? { plugins } : {}),
            ...(o.dryRun ? { dry_run: true } : {}),
            ...(packages ? { packages } : {}),
            ...(mcp ? { mcp_servers: mcp } : {}),
          },
          () =>
            [
              ...collections.map(
                (x) =>
                  `Found ${[x.skills > 0 ? plural(x.skills, 'skill') : '', x.plugins > 0 ? plural(x.plugins, 'plugin') : ''].filter(Boolean).join(' and ')} in ${x.path === '.' ? x.import : `${x.import}/${x.path}`}`,
              ),
              ...skippedLines(skipped),
              ...(imported.length > 0 || !mcp ? [formatImported(imported, o.dryRun)] : []),
              ...plugins.flatMap((pl) =>
                pl.not_installed.length === 0
                  ? []
                  : [
                      `Plugin ${pl.name}: not installed (SkillDesk installs a plugin's skills and MCP servers only):`,
                      ...pl.not_installed.map((x) => `  ${x.path} (${x.part}): ${x.reason}`),
                    ],
              ),
              ...(mcp ?? []).map((m) =>
                m.action === 'exists'
                  ? `MCP server ${m.name}: a server of that name is already configured (${m.scope}); kept it, the plugin's was not added`
                  : `MCP server ${m.name}: ${o.dryRun ? 'would be added' : 'added'} disabled (${m.scope}, ${m.transport}); enable it with: ${m.enable_command}`,
              ),
              ...(packages ?? [])
                .filter((p) => p.ok)
                .map((p) => `${p.skill}: packages ${p.wheels!.map((w) => w.filename).join(', ')}`),
            ].join('\n'),
        );
      },
    );
}

/**
 * Compute the e5 vectors skills lack, with progress on stderr (a line per tenth on a terminal,
 * the last line only otherwise). Nothing when the model is not installed.
 */
async function embedWithProgress(c: CoreClient, ctx: CliContext) {
  const runId = `embed-${process.pid}-${Date.now()}`;
  let shown = -1;
  const stop = c.subscribe('skills/embed-progressed', (p) => {
    if (p.run_id !== runId || !ctx.io.isTty || p.total === 0) return;
    const tenth = Math.floor((p.embedded / p.total) * 10);
    if (tenth === shown) return;
    shown = tenth;
    ctx.io.stderr(`embedding skills for matching by meaning: ${p.embedded} of ${p.total}\n`);
  });
  try {
    const r = await c.invoke('skills/embed', { run_id: runId });
    if (r.model && r.newly_embedded > 0)
      ctx.io.stderr(
        `embedded ${r.newly_embedded} skill(s) for matching by meaning in ${(r.took_ms / 1000).toFixed(1)} s (${r.embedded} of ${r.total} have a vector)\n`,
      );
    return r;
  } finally {
    stop();
  }
}

/** `skills embed`: the e5 vectors skills lack (an import with --no-embed, an older catalog). */
function registerEmbed(skills: Command, ctx: CliContext): void {
  skills
    .command('embed')
    .description(
      'compute the e5 vectors of skills that have none yet, with progress (import does it unless --no-embed; matches never wait for it and match such skills by words meanwhile)',
    )
    .action(async () => {
      const r = await withClient(ctx, (c) => embedWithProgress(c, ctx));
      ctx.print(r, () =>
        r.model
          ? `${r.embedded} of ${r.total} skills have an e5 vector (${r.newly_embedded} computed now, ${(r.took_ms / 1000).toFixed(1)} s).${
              r.second?.model
                ? `\n${r.second.embedded} of ${r.second.total} have a MiniLM vector (${r.second.newly_embedded} computed now).`
                : r.second
                  ? `\nThe second model (MiniLM) is not in use: ${r.second.reason ?? 'not installed'}.`
                  : ''
            }`
          : `Nothing embedded: ${r.reason ?? 'the e5 model is not installed'}. Skills match by words and the static embedding.`,
      );
    });
}

/** The MCP servers of both stores' mcp.json; a file that cannot be read is an error. */
async function configuredServers(c: CoreClient) {
  const listed = await c.invoke('tools/list-servers', {});
  if (listed.error) throw new AppError('INVALID_INPUT', listed.error);
  return listed.servers.map((x) => ({ name: x.name, scope: x.scope }));
}

/**
 * Add a plugin's MCP servers to the store's `mcp.json`, disabled: a plugin's server is a program
 * (or a URL) the user has not looked at yet, so it runs only after `skilldesk mcp enable NAME`. A
 * server already configured under the same name is left as it is.
 */
async function addPluginServers(
  c: CoreClient,
  servers: PluginServer[],
  configured: Array<{ name: string; scope: SkillScope }>,
  scope: SkillScope,
  dryRun: boolean,
) {
  const out: Array<{
    name: string;
    scope: SkillScope;
    transport: 'stdio' | 'http';
    action: 'added' | 'exists';
    enable_command: string;
  }> = [];
  for (const s of servers) {
    const taken = configured.find((x) => x.scope === scope && x.name.toLowerCase() === s.name.toLowerCase());
    if (!taken && !dryRun) await c.invoke('tools/save-server', { scope, name: s.name, config: s.config });
    out.push({
      name: s.name,
      scope,
      transport: 'command' in s.config ? 'stdio' : 'http',
      action: taken ? 'exists' : 'added',
      enable_command: `skilldesk mcp enable ${/^[A-Za-z0-9._-]+$/.test(s.name) ? s.name : JSON.stringify(s.name)}${scope === 'workspace' ? ' --workspace DIR' : ''}`,
    });
  }
  return out;
}

/** Install the packages each loaded skill declares (a `requirements.txt` among its files). */
async function installDeclared(c: CoreClient, loaded: LoadedPackage[]) {
  const out: Array<{
    skill: string;
    ok: boolean;
    wheels?: Array<{ filename: string; sha256: string }>;
    error?: string;
  }> = [];
  for (const l of loaded) {
    const pkg = l.pkg as { name?: unknown; artifacts?: Array<{ metadata?: { path?: unknown } | null }> };
    const declares = pkg.artifacts?.some(
      (a) => typeof a.metadata?.path === 'string' && /(^|\/)requirements\.txt$/.test(a.metadata.path),
    );
    if (!declares || typeof pkg.name !== 'string') continue;
    try {
      const r = await c.invoke('scripts/install-packages', { name: pkg.name });
      out.push({
        skill: pkg.name,
        ok: true,
        wheels: r.wheels.map((w) => ({ filename: w.filename, sha256: w.sha256 })),
      });
    } catch (e) {
      out.push({ skill: pkg.name, ok: false, error: (e as Error).message });
    }
  }
  return out;
}

/** `skills list`: the merged catalog. */
function registerList(skills: Command, ctx: CliContext): void {
  skills
    .command('list')
    .description('list the merged catalog; account skills hidden by a workspace skill are marked overridden')
    .addOption(scopeOption('only this store'))
    .action(async (o: { scope?: SkillScope }) => {
      const { skills: all } = await withClient(ctx, (c) => c.invoke('skills/list', { scope: o.scope }));
      const items = all.map((e) => ({
        name: e.name,
        scope: e.scope,
        version: e.version,
        source: e.source,
        description: e.description,
        tags: e.tags,
        artifact_kinds: e.artifact_kinds,
        switch: e.switch,
        overridden: e.overridden,
        ...(e.overridden_by ? { overridden_by: e.overridden_by } : {}),
        ...(e.overrides ? { overrides: e.overrides } : {}),
        ...(e.model_invocable === false ? { model_invocable: false } : {}),
        ...(e.user_invocable === false ? { user_invocable: false } : {}),
        ...(e.argument_hint ? { argument_hint: e.argument_hint } : {}),
        ...(e.internal ? { internal: true } : {}),
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
                : e.internal
                  ? "  (internal: the app's own, never matched)"
                  : '';
            const sw = e.switch === 'on' ? '' : `  [${e.switch}]`;
            return `${e.name.padEnd(width)}  ${e.scope.padEnd(9)}  ${e.version.padEnd(8)}  ${kindsLabel(e)}${sw}${flag}`;
          })
          .join('\n');
      });
    });
}

/** `skills set`: a skill's switch in one store. */
function registerSet(skills: Command, ctx: CliContext): void {
  skills
    .command('set')
    .description(
      "switch a skill on, to name-only (listed and started by name, never matched into a prompt) or off (hidden from the model, matching, the MCP server and the / menu), in one store; a workspace's switch wins over the account's, and may name an account skill",
    )
    .argument('<name>', 'skill name')
    .addArgument(new Argument('<state>', 'on, name-only or off').choices(['on', 'name-only', 'off']))
    .addOption(
      scopeOption('store that keeps the switch (default: workspace when --workspace is given, else account)'),
    )
    .action(async (name: string, state: 'on' | 'name-only' | 'off', o: { scope?: SkillScope }) => {
      if (o.scope) requireWorkspaceFor(ctx, o.scope);
      const r = await withClient(ctx, (c) =>
        c.invoke('skills/set-switch', { name, state, ...(o.scope ? { scope: o.scope } : {}) }),
      );
      ctx.print(r, () =>
        r.effective === r.state
          ? `${r.name} is ${r.state} (${r.scope}).`
          : `${r.name}: set ${r.state} in the ${r.scope} store, but the workspace's switch (${r.effective}) applies here.`,
      );
    });
}

/** `skills show`: one skill with its artifacts. */
function registerShow(skills: Command, ctx: CliContext): void {
  skills
    .command('show')
    .description('show one skill and its artifacts (the workspace one when both scopes have it)')
    .argument('<name>', 'skill name')
    .addOption(scopeOption('look only in this store'))
    .action(async (name: string, o: { scope?: SkillScope }) => {
      requireWorkspaceFor(ctx, o.scope);
      const [{ skill }, exported] = await withClient(ctx, (c) =>
        Promise.all([
          c.invoke('skills/get', { name, scope: o.scope }),
          c.invoke('skills/export-package', { name, scope: o.scope }),
        ]),
      );
      const pkg = JSON.parse(exported.text) as Record<string, unknown>;
      const { scope, overridden, overrides } = skill;
      ctx.print(
        {
          skill: {
            ...pkg,
            scope,
            overridden,
            overrides,
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
          if (skill.tags.length) lines.push(`Tags: ${skill.tags.join(', ')}`);
          if (skill.trigger_phrases.length)
            lines.push(`Triggers: ${skill.trigger_phrases.map((t) => `"${t}"`).join(', ')}`);
          if (skill.intent_patterns.length) lines.push(`Intents: ${skill.intent_patterns.join(', ')}`);
          lines.push('', 'Artifacts:');
          for (const a of skill.artifacts) {
            const variant = a.model_variant ? ` (${a.model_variant})` : '';
            const size = `${a.content.length} chars${a.state_blob_bytes ? `, state ${a.state_blob_bytes} bytes` : ''}`;
            lines.push(
              `  ${String(a.ordinal).padStart(2)}. ${a.kind.padEnd(15)} ${a.name}${variant}  ${size}`,
            );
          }
          return lines.join('\n');
        },
      );
    });
}

/** `skills export`: a JSON package or an Agent Skills folder. */
function registerExport(skills: Command, ctx: CliContext): void {
  skills
    .command('export')
    .description('export a skill as a JSON package (stdout or -o FILE) or an Agent Skills folder')
    .argument('<name>', 'skill name')
    .option('-o, --output <path>', 'file (json, zip) or folder (agent-skill) to write')
    .addOption(
      new Option(
        '--format <format>',
        'package format: a JSON package, an Agent Skills folder, or a zip of one',
      )
        .choices(['json', 'agent-skill', 'zip'])
        .default('json'),
    )
    .addOption(scopeOption('export from this store'))
    .option('--force', 'overwrite an existing folder', false)
    .action(
      async (
        name: string,
        o: { output?: string; format: 'json' | 'agent-skill' | 'zip'; scope?: SkillScope; force: boolean },
      ) => {
        requireWorkspaceFor(ctx, o.scope);
        if (o.format === 'json') {
          const r = await withClient(ctx, (c) => c.invoke('skills/export-package', { name, scope: o.scope }));
          if (!o.output) {
            ctx.io.stdout(r.text);
            return;
          }
          (await storeModule()).writeFileAtomic(resolve(o.output), r.text);
          ctx.print(
            { exported: { name: r.name, scope: r.scope, format: 'json', path: resolve(o.output) } },
            () => `Wrote ${resolve(o.output!)}`,
          );
          return;
        }
        const r = await withClient(ctx, (c) =>
          c.invoke('skills/export-agent-skill', { name, scope: o.scope }),
        );
        const files = new Map(r.files.map((f) => [f.path, Buffer.from(f.data_base64, 'base64')]));
        const executable = r.files.filter((f) => f.executable).map((f) => f.path);
        if (o.format === 'zip') {
          const path = resolve(o.output ?? `${r.slug}.zip`);
          if (existsSync(path) && !o.force)
            throw new AppError(
              'CONFLICT',
              `${path} already exists; pass --force to overwrite or choose another -o`,
            );
          (await storeModule()).writeFileAtomic(
            path,
            await (await skillsModule()).writeZip(files, r.slug, (p) => executable.includes(p)),
          );
          ctx.print(
            {
              exported: {
                name: r.name,
                scope: r.scope,
                format: 'zip',
                path,
                files: [...files.keys()],
                skipped: r.skipped,
              },
            },
            () => `Wrote ${path} (${files.size} file${files.size === 1 ? '' : 's'} under ${r.slug}/)`,
          );
          return;
        }
        const written = (await skillsModule()).writeAgentSkillFolder(r.slug, files, o.output, {
          force: o.force,
          executable,
        });
        if (r.skipped.length > 0 && !ctx.globals().json) {
          ctx.io.stderr(
            `note: the Agent Skills format has no place for: ${r.skipped.join(', ')} (export --format json keeps them)\n`,
          );
        }
        ctx.print(
          {
            exported: {
              name: r.name,
              scope: r.scope,
              format: 'agent-skill',
              path: written.dir,
              files: written.files,
              skipped: r.skipped,
            },
          },
          () => `Wrote ${written.dir} (${written.files.length} file${written.files.length === 1 ? '' : 's'})`,
        );
      },
    );
}

/** `skills delete`: remove a skill from one store. */
function registerDelete(skills: Command, ctx: CliContext): void {
  skills
    .command('delete')
    .description('delete a skill (and its artifacts) from one store')
    .argument('<name>', 'skill name')
    .addOption(scopeOption('store to delete from').makeOptionMandatory())
    .action(async (name: string, o: { scope: SkillScope }) => {
      requireWorkspaceFor(ctx, o.scope);
      const r = await withClient(ctx, (c) => c.invoke('skills/delete', { name, scope: o.scope }));
      ctx.print(
        { deleted: r.deleted },
        () =>
          `Deleted ${r.deleted.name} from the ${o.scope} store.${r.revealed ? ` The account skill of that name (${r.revealed.version}) is active again.` : ''}`,
      );
    });
}

/** `skills match`: phase-1 activation for a message, optionally explained. */
function registerMatch(skills: Command, ctx: CliContext): void {
  skills
    .command('match')
    .description('rank skills for a message (phase-1 activation: deterministic BM25 + exact trigger phrases)')
    .argument('<message>', 'the user message')
    .option('--limit <n>', 'how many matches', positiveInt('--limit'), 5)
    .option(
      '--explain [skill]',
      'say why: query terms (with synonyms and spelling fixes), matched stems per field; with a skill name, why it was or was not matched',
    )
    .addOption(scopeOption('scope of the skill named by --explain'))
    .action(async (message: string, o: { limit: number; explain?: boolean | string; scope?: SkillScope }) => {
      const {
        matches,
        took_ms,
        index_ms,
        e5: e5Status,
        explain,
      } = await withClient(ctx, (c) =>
        c.invoke('skills/match', {
          message,
          limit: o.limit,
          ...(o.explain ? { explain: true } : {}),
          ...(typeof o.explain === 'string' ? { explain_skill: o.explain, explain_scope: o.scope } : {}),
        }),
      );
      const pending = e5Status?.model ? e5Status.total - e5Status.embedded : 0;
      const second = e5Status?.second;
      const pendingSecond = second?.model ? second.total - second.embedded : 0;
      ctx.print(
        {
          matches,
          took_ms,
          index_ms,
          ...(e5Status ? { e5: e5Status } : {}),
          ...(explain ? { explain } : {}),
        },
        () => {
          const lines: string[] = [];
          if (matches.length === 0) lines.push('No skill matches that message.');
          const width = Math.max(0, ...matches.map((m) => m.name.length));
          matches.forEach((m, i) => {
            lines.push(
              `${String(i + 1).padStart(2)}. ${m.name.padEnd(width)}  ${m.scope.padEnd(9)}  ${m.score.toFixed(4)}  ${m.matched_on.join(', ')}`,
            );
            const why = explain?.candidates[i];
            if (why) {
              const fields = Object.entries(why.fields).map(([f, terms]) => `${f}: ${terms.join(' ')}`);
              if (why.exact_trigger) fields.unshift(`trigger phrase "${why.exact_trigger}"`);
              const sem = why.semantic === null ? '' : `, semantic ${why.semantic.toFixed(3)}`;
              const e5 = why.dense == null ? '' : `, e5 ${why.dense.toFixed(3)}`;
              const mini = why.dense_second == null ? '' : `, MiniLM ${why.dense_second.toFixed(3)}`;
              lines.push(`      bm25 ${why.bm25.toFixed(3)}${sem}${e5}${mini}; ${fields.join('; ')}`);
            }
          });
          if (explain) {
            const terms = explain.query_terms.map((t) =>
              t.source === 'message' ? `${t.term}` : `${t.term} (${t.source} of ${t.from}, ×${t.weight})`,
            );
            lines.push(`Query terms: ${terms.join(', ') || 'none'}`);
            const e5 = explain.e5;
            if (e5) {
              const cover = e5.total > 0 ? ` (${e5.embedded} of ${e5.total} skills embedded)` : '';
              lines.push(
                e5.used
                  ? `e5 model: fused${cover}`
                  : `e5 model: not used, ${e5.reason ?? 'unavailable'}; ranked by words and the static embedding${cover}`,
              );
              const s2 = e5.second;
              if (e5.used && s2)
                lines.push(
                  s2.used
                    ? `MiniLM model: fused beside e5 (${s2.embedded} of ${s2.total} skills embedded)`
                    : `MiniLM model: not used, ${s2.reason ?? 'unavailable'}`,
                );
            }
            const v = explain.skill;
            if (v) {
              const why = {
                matched: `matched at rank ${v.rank}`,
                lower_score: `ranked ${v.rank}: ${v.above} skills scored higher`,
                no_term_overlap: 'shares no term (nor synonym) with the message',
                overridden: 'hidden by the workspace skill of the same name',
                switched_off: 'switched name-only or off: never matched (skills set NAME on)',
                not_found: 'no such skill',
              }[v.reason];
              lines.push(`${v.name}${v.scope ? ` [${v.scope}]` : ''}: ${why}`);
            }
          }
          if (pending > 0 && !explain)
            lines.push(
              `e5: ${pending} of ${e5Status!.total} skills have no vector yet and match by words only; compute them with: skilldesk skills embed`,
            );
          // An older catalog has e5's vectors and not yet the second model's.
          else if (pendingSecond > 0 && !explain)
            lines.push(
              `MiniLM: ${pendingSecond} of ${second!.total} skills have no vector yet and are matched without it; compute them with: skilldesk skills embed`,
            );
          lines.push(`(${took_ms.toFixed(2)} ms${index_ms ? `, index ${index_ms.toFixed(1)} ms` : ''})`);
          return lines.join('\n');
        },
      );
    });
}

/** A regression as the CLI prints it: the rates, then each query phase 1 now gets wrong. */
export function describeTriggerRegression(r: TriggerRegressionView): string {
  const pct = (x: number | null) => (x === null ? '–' : `${Math.round(x * 100)}%`);
  const head = `${r.name} (${r.scope}, ${r.version_before} → ${r.version_after}): trigger recall ${pct(r.recall_before)} → ${pct(r.recall_after)}, precision ${pct(r.precision_before)} → ${pct(r.precision_after)}`;
  const lines = r.failing.map(
    (f) =>
      `  ${f.should_trigger ? 'should fire, does not' : 'should not fire, does'}${f.newly ? ' (new)' : ''}: ${JSON.stringify(f.query)}`,
  );
  return [head, ...lines].join('\n');
}
