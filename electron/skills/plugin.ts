/**
 * Agent Plugins (Claude Code's plugin layout): a folder with `.claude-plugin/plugin.json` (or a
 * `plugin.json` at its top), Agent Skills under `skills/<name>/SKILL.md` and MCP servers in
 * `.mcp.json` / `mcp.json` or plugin.json's `mcpServers`. The skills go through the ordinary import;
 * the servers are checked here, before anything is written, and added disabled by the caller.
 */
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { AppError } from '../contract/errors.js';
import { type McpServerConfigView, SaveServerReqSchema } from '../contract/tools.js';
import { type LoadedPackage, loadPackages } from './import.js';
import type { ImportLimits } from './limits.js';

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

/** What a plugin folder holds. */
export interface LoadedPlugin {
  name: string;
  version?: string;
  dir: string;
  skills: LoadedPackage[];
  servers: PluginServer[];
}

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
export async function loadPlugin(dir: string, limits: ImportLimits): Promise<LoadedPlugin> {
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
  if (m.mcpServers !== undefined && typeof m.mcpServers === 'object') {
    servers = serversOf(m.mcpServers, dir, manifestFile);
  } else {
    const file =
      typeof m.mcpServers === 'string'
        ? inside(dir, m.mcpServers, manifestFile, 'mcpServers')
        : MCP_FILES.map((f) => join(dir, f)).find((f) => existsSync(f));
    if (file) {
      if (!existsSync(file))
        throw new AppError('INVALID_INPUT', `${manifestFile}: mcpServers file ${file} does not exist`, {
          file: manifestFile,
        });
      servers = serversOf(readJson(file, 'the MCP server list'), dir, file);
    }
  }
  if (skills.length === 0 && servers.length === 0)
    throw new AppError(
      'INVALID_INPUT',
      `${dir}: the plugin "${m.name}" holds no skills (skills/<name>/SKILL.md) and no MCP servers (.mcp.json); nothing to import`,
      { file: dir },
    );
  return { name: m.name, ...(m.version ? { version: m.version } : {}), dir, skills, servers };
}
