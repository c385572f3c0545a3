/**
 * Agent Plugins (Claude Code's plugin layout): a folder with `.claude-plugin/plugin.json` (or a
 * `plugin.json` at its top), Agent Skills under `skills/<name>/SKILL.md` and MCP servers in
 * `.mcp.json` / `mcp.json` or plugin.json's `mcpServers`. The skills go through the ordinary import,
 * named `plugin:skill` as Claude Code names them; the servers are checked here, before anything is
 * written, and added disabled by the caller. Everything else (commands, agents, hooks, …) is named
 * in `not_installed`.
 */
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { AppError } from '../contract/errors.js';
import { type McpServerConfigView, SaveServerReqSchema } from '../contract/tools.js';
import { type LoadedPackage, loadPackages } from './import.js';
import type { ImportLimits } from './limits.js';
import { pluginSkillName } from './plugin-name.js';

/** Where plugin.json may be, in the order looked at. */
const MANIFESTS = ['.claude-plugin/plugin.json', 'plugin.json'];
/** Where a plugin's MCP servers may be when plugin.json does not say. */
const MCP_FILES = ['.mcp.json', 'mcp.json'];
/** The variable plugin configs use for the plugin's own folder (`${CLAUDE_PLUGIN_ROOT}/server.js`). */
const ROOT_VAR = /\$\{CLAUDE_PLUGIN_ROOT\}/g;

const PluginManifestSchema = z
  .object({
    name: z.string().trim().min(1, 'is required').max(200),
    version: z.string().max(100).optional(),
    description: z.string().max(5000).optional(),
    // A path (or paths) relative to the plugin holding skill folders; `skills/` when left out.
    skills: z.union([z.string(), z.array(z.string()).max(50)]).optional(),
    // Inline servers, or the path of a file holding them.
    mcpServers: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  })
  .passthrough();

/** An MCP server a plugin declares, checked, ready to be saved disabled. */
export interface PluginServer {
  name: string;
  config: McpServerConfigView;
}

/** A part of a plugin that SkillDesk does not install, by its path in the plugin. */
export interface PluginPart {
  /** Relative to the plugin folder (`commands/deploy.md`, `hooks/hooks.json`, `server.ts`). */
  path: string;
  /** What it is: `command`, `agent`, `hook`, `output style`, `LSP server`, `file`, `folder`. */
  part: string;
  /** Why it is not installed, in a few words. */
  reason: string;
}

/** What a plugin folder holds. */
export interface LoadedPlugin {
  name: string;
  version?: string;
  dir: string;
  /** Each named `plugin:skill`, as Claude Code names a plugin's skills. */
  skills: LoadedPackage[];
  servers: PluginServer[];
  /** Everything in the plugin that is not installed (its skills and MCP servers are). */
  not_installed: PluginPart[];
}

/** Claude Code plugin parts SkillDesk has no equivalent for, by folder and plugin.json key. */
const COMPONENTS: Array<{ dir: string; key: string; part: string; reason: string }> = [
  { dir: 'commands', key: 'commands', part: 'command', reason: 'slash commands are a Claude Code feature' },
  { dir: 'agents', key: 'agents', part: 'agent', reason: 'subagents are a Claude Code feature' },
  { dir: 'hooks', key: 'hooks', part: 'hook', reason: 'hooks run on Claude Code events' },
  {
    dir: 'output-styles',
    key: 'outputStyles',
    part: 'output style',
    reason: 'output styles are a Claude Code feature',
  },
];
/** Files every plugin folder may carry that are documentation, not parts. */
const DOCS = /^(?:readme|license|licence|notice|copying|changelog|contributing|security)(?:[._-].*)?$/i;

/** The plugin.json of a folder, or null when it is not a plugin. */
export function pluginManifestPath(dir: string): string | null {
  for (const m of MANIFESTS) {
    const p = join(dir, m);
    if (existsSync(p) && lstatSync(p).isFile()) return p;
  }
  return null;
}

function readJson(file: string, what: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, '')) as unknown;
  } catch (e) {
    throw new AppError(
      'INVALID_INPUT',
      `${file}: ${what} is not valid JSON (${(e as Error).message}); fix the file and import again`,
      { file },
    );
  }
}

/** A path plugin.json names, kept inside the plugin (no `..`, no absolute path, no link). */
function inside(dir: string, rel: string, manifest: string, key: string): string {
  const abs = resolve(dir, rel);
  const r = relative(dir, abs);
  if (isAbsolute(rel) || r.startsWith('..') || isAbsolute(r))
    throw new AppError(
      'UNSAFE_PATH',
      `${manifest}: ${key} "${rel}" points outside the plugin folder; use a path inside it (./skills/)`,
      { file: manifest },
    );
  if (existsSync(abs) && lstatSync(abs).isSymbolicLink())
    throw new AppError('UNSAFE_PATH', `${abs} is a symbolic link; links are not imported`, { file: abs });
  return abs;
}

function substituteRoot<T>(v: T, dir: string): T {
  if (typeof v === 'string') return v.replace(ROOT_VAR, dir) as T;
  if (Array.isArray(v)) return v.map((x) => substituteRoot(x, dir)) as T;
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substituteRoot(x, dir)])) as T;
  return v;
}

/** The servers of an `mcpServers` map (or a file's `{"mcpServers": …}` or bare map), checked. */
function serversOf(raw: unknown, dir: string, file: string): PluginServer[] {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    throw new AppError('INVALID_INPUT', `${file}: MCP servers must be a JSON object of servers by name`, {
      file,
    });
  const obj = raw as Record<string, unknown>;
  const map = (obj.mcpServers && typeof obj.mcpServers === 'object' ? obj.mcpServers : obj) as Record<
    string,
    unknown
  >;
  const out: PluginServer[] = [];
  for (const [name, cfg] of Object.entries(map)) {
    // Plugins ship servers the user has not looked at: each starts disabled whatever it says.
    const config = { ...substituteRoot(cfg as Record<string, unknown>, dir), disabled: true };
    const r = SaveServerReqSchema.safeParse({ scope: 'account', name, config });
    if (!r.success) {
      const i = r.error.issues[0]!;
      throw new AppError(
        'INVALID_INPUT',
        `${file}: MCP server "${name}": ${i.path.join('.')}: ${i.message}; fix the plugin's server and import again`,
        { file, name },
      );
    }
    out.push({ name: r.data.name, config: r.data.config });
  }
  return out;
}

/** Read and check a plugin folder: its skills (each through {@link loadPackages}) and MCP servers. */
export async function loadPlugin(
  dir: string,
  limits: ImportLimits,
  opts: { allowEmpty?: boolean } = {},
): Promise<LoadedPlugin> {
  const manifestFile = pluginManifestPath(dir);
  if (!manifestFile)
    throw new AppError('INVALID_INPUT', `${dir}: no .claude-plugin/plugin.json or plugin.json`, {
      file: dir,
    });
  const parsed = PluginManifestSchema.safeParse(readJson(manifestFile, 'plugin.json'));
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new AppError(
      'INVALID_INPUT',
      `${manifestFile}: ${i.path.join('.') || 'plugin.json'}: ${i.message}; fix plugin.json and import again`,
      { file: manifestFile },
    );
  }
  const m = parsed.data;
  const skillDirs = (
    m.skills === undefined ? ['skills'] : typeof m.skills === 'string' ? [m.skills] : m.skills
  ).map((p) => inside(dir, p, manifestFile, 'skills'));
  const skills: LoadedPackage[] = [];
  for (const sd of skillDirs) {
    if (!existsSync(sd)) {
      if (m.skills === undefined) continue;
      throw new AppError('INVALID_INPUT', `${manifestFile}: skills folder ${sd} does not exist`, {
        file: manifestFile,
      });
    }
    // Each skill folder on its own, under the limits (as a folder of skills is read).
    const names = readdirSync(sd, { withFileTypes: true })
      .filter((e) => e.isDirectory() && existsSync(join(sd, e.name, 'SKILL.md')))
      .map((e) => e.name)
      .sort();
    for (const n of names) skills.push(...(await loadPackages(join(sd, n), limits)));
  }
  let servers: PluginServer[] = [];
  let mcpFile: string | undefined;
  if (m.mcpServers !== undefined && typeof m.mcpServers === 'object') {
    servers = serversOf(m.mcpServers, dir, manifestFile);
  } else {
    const file =
      typeof m.mcpServers === 'string'
        ? inside(dir, m.mcpServers, manifestFile, 'mcpServers')
        : MCP_FILES.map((f) => join(dir, f)).find((f) => existsSync(f));
    if (file) {
      mcpFile = file;
      if (!existsSync(file))
        throw new AppError('INVALID_INPUT', `${manifestFile}: mcpServers file ${file} does not exist`, {
          file: manifestFile,
        });
      servers = serversOf(readJson(file, 'the MCP server list'), dir, file);
    }
  }
  if (skills.length === 0 && servers.length === 0 && !opts.allowEmpty)
    throw new AppError(
      'INVALID_INPUT',
      `${dir}: the plugin "${m.name}" holds no skills (skills/<name>/SKILL.md) and no MCP servers (.mcp.json); nothing to import`,
      { file: dir },
    );
  const used = new Set<string>([
    ...skillDirs.map((d) => relative(dir, d).split(/[\\/]/)[0]!),
    relative(dir, manifestFile).split(/[\\/]/)[0]!,
    ...(mcpFile ? [relative(dir, mcpFile).split(/[\\/]/)[0]!] : []),
  ]);
  const named = skills.map((l) => ({ ...l, pkg: { ...l.pkg, name: pluginSkillName(m.name, l.pkg.name) } }));
  return {
    name: m.name,
    ...(m.version ? { version: m.version } : {}),
    dir,
    skills: named,
    servers,
    not_installed: partsNotInstalled(dir, m, used),
  };
}

/**
 * What a plugin holds beyond its skills and MCP servers, by name: each command, agent, hook and
 * output style, what plugin.json declares elsewhere (LSP servers, other paths), and any other file
 * or folder at its top (a server's program stays in the plugin folder, where its config runs it).
 */
function partsNotInstalled(dir: string, m: Record<string, unknown>, used: Set<string>): PluginPart[] {
  const out: PluginPart[] = [];
  const top = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  const listDir = (rel: string, part: string, reason: string) => {
    const abs = join(dir, rel);
    if (!existsSync(abs) || lstatSync(abs).isSymbolicLink() || !lstatSync(abs).isDirectory()) return false;
    const walk = (r: string) => {
      for (const e of readdirSync(join(dir, r), { withFileTypes: true }).sort((a, b) =>
        a.name < b.name ? -1 : 1,
      )) {
        if (e.isDirectory()) walk(`${r}/${e.name}`);
        else out.push({ path: `${r}/${e.name}`, part, reason });
      }
    };
    walk(rel);
    return true;
  };
  const covered = new Set(used);
  for (const c of COMPONENTS) {
    if (listDir(c.dir, c.part, c.reason)) covered.add(c.dir);
    const declared = m[c.key];
    const paths = typeof declared === 'string' ? [declared] : Array.isArray(declared) ? declared : [];
    for (const p of paths) {
      if (typeof p !== 'string') continue;
      const rel = relative(dir, resolve(dir, p));
      if (rel.startsWith('..') || isAbsolute(rel)) continue;
      covered.add(rel.split(/[\\/]/)[0]!);
      if (!listDir(rel, c.part, c.reason)) out.push({ path: rel, part: c.part, reason: c.reason });
    }
    if (declared && typeof declared === 'object' && !Array.isArray(declared))
      out.push({ path: `plugin.json ${c.key}`, part: c.part, reason: c.reason });
  }
  if (m.lspServers !== undefined) {
    out.push({
      path: typeof m.lspServers === 'string' ? m.lspServers : 'plugin.json lspServers',
      part: 'LSP server',
      reason: 'language servers are a Claude Code feature',
    });
    if (typeof m.lspServers === 'string') covered.add(m.lspServers.replace(/^\.\//, '').split('/')[0]!);
  }
  if (existsSync(join(dir, '.lsp.json'))) covered.add('.lsp.json');
  for (const e of top) {
    if (covered.has(e.name) || DOCS.test(e.name) || e.name === '.git') continue;
    out.push({
      path: e.isDirectory() ? `${e.name}/` : e.name,
      part: e.isDirectory() ? 'folder' : 'file',
      reason: 'left in the plugin folder (an MCP server runs from there)',
    });
  }
  if (existsSync(join(dir, '.lsp.json')) && m.lspServers === undefined)
    out.push({ path: '.lsp.json', part: 'LSP server', reason: 'language servers are a Claude Code feature' });
  return out;
}
