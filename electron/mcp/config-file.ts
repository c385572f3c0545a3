/**
 * Writing `mcp.json` (Settings → Tools): one server added, replaced, renamed or removed, every
 * other key of the file kept as the user wrote it, the file replaced atomically.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../contract/errors.js';
import type { McpServerConfigView } from '../contract/tools.js';
import { writeFileAtomic } from '../store/index.js';
import { MCP_CONFIG_FILE } from './client.js';

function readRaw(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // handled below
  }
  throw new AppError(
    'INVALID_INPUT',
    `${file} is not a JSON object; fix it by hand (nothing was changed) before editing servers here`,
    { file },
  );
}

function write(file: string, data: Record<string, unknown>): void {
  writeFileAtomic(file, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
}

/** Add or replace server `name` in `<dir>/mcp.json`; `previousName` renames it. Returns the file. */
export function saveServerConfig(
  dir: string,
  name: string,
  config: McpServerConfigView,
  previousName?: string,
): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, MCP_CONFIG_FILE);
  const raw = readRaw(file);
  const servers = { ...((raw.mcpServers as Record<string, unknown> | undefined) ?? {}) };
  const clash = Object.keys(servers).find(
    (k) => k.toLowerCase() === name.toLowerCase() && k !== (previousName ?? name),
  );
  if (clash)
    throw new AppError('CONFLICT', `a server named "${clash}" already exists here; choose another name`, {
      name,
    });
  if (previousName && previousName !== name) delete servers[previousName];
  servers[name] = config;
  write(file, { ...raw, mcpServers: servers });
  return file;
}

/** Remove server `name` from `<dir>/mcp.json`. */
export function removeServerConfig(dir: string, name: string): void {
  const file = join(dir, MCP_CONFIG_FILE);
  const raw = readRaw(file);
  const servers = { ...((raw.mcpServers as Record<string, unknown> | undefined) ?? {}) };
  if (!(name in servers))
    throw new AppError('NOT_FOUND', `no MCP server named "${name}" in ${file}`, { name, file });
  delete servers[name];
  write(file, { ...raw, mcpServers: servers });
}
