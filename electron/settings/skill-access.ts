/**
 * What the user lets one LLM skill have: the hosts its tools may reach (granted one by one, kept in
 * `<home>/skill-grants.json`) and the secrets its `tool_env` names (kept in the secret store beside
 * the provider keys, main process only). Keyed by skill name, so a skill keeps them across versions.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HandlersFor } from '../contract/channels.js';
import { AppError } from '../contract/errors.js';
import type { SkillAccessView } from '../contract/skill-access.js';
import { PROVIDER_KEY_ENV_NAMES } from '../kinds/index.js';
import { PROVIDERS } from '../llm/index.js';
import { writeFileAtomic } from '../store/index.js';
import type { SecretStore } from './secrets.js';

/** The file of the network grants. */
export const GRANTS_FILE = 'skill-grants.json';

/** One skill's access, as the app reads and changes it. */
export interface SkillAccess {
  grants(skill: string): string[];
  grant(skill: string, hosts: readonly string[]): string[];
  revoke(skill: string, hosts: readonly string[]): string[];
  /** The skill's secrets among `names` (absent when not entered). */
  secrets(skill: string, names: readonly string[]): Record<string, string>;
  /** Store (or, with an empty value, remove) a secret of the skill. */
  setSecret(skill: string, name: string, value: string): void;
  /** Whether the skill has a secret under `name` (never its value). */
  hasSecret(skill: string, name: string): boolean;
}

const secretName = (skill: string, name: string) => `skill-secret:${skill}:${name}`;

/**
 * Whether `value` is or holds one of the provider keys (`Bearer sk-…`, the key in quotes or with a
 * suffix). Keys shorter than 8 characters are not real keys and would match by chance.
 */
function holdsKey(value: string, keys: readonly string[]): boolean {
  return keys.some((k) => k.length >= 8 && value.includes(k));
}
const HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** Build the access store over the account folder and its secret store. */
export function createSkillAccess(deps: {
  home: string;
  secrets: SecretStore;
  env: NodeJS.ProcessEnv;
}): SkillAccess {
  const file = join(deps.home, GRANTS_FILE);
  const read = (): Record<string, string[]> => {
    if (!existsSync(file)) return {};
    try {
      const json = JSON.parse(readFileSync(file, 'utf8')) as { skills?: Record<string, unknown> };
      const out: Record<string, string[]> = {};
      for (const [k, v] of Object.entries(json.skills ?? {}))
        if (Array.isArray(v)) out[k] = v.filter((h): h is string => typeof h === 'string');
      return out;
    } catch {
      throw new AppError(
        'STORE_FAILED',
        `${file} is not valid JSON: fix or delete it (granted hosts are kept there)`,
        {
          file,
        },
      );
    }
  };
  const write = (all: Record<string, string[]>) =>
    writeFileAtomic(file, `${JSON.stringify({ version: 1, skills: all }, null, 2)}\n`);
  const norm = (hosts: readonly string[]) =>
    hosts.map((h) => {
      const x = h.trim().toLowerCase();
      if (!HOST.test(x))
        throw new AppError(
          'INVALID_INPUT',
          `"${h}" is not a host: give a name or address, optionally with :port (api.example.com, 127.0.0.1:8080)`,
        );
      return x;
    });
  const providerKeys = (): string[] =>
    Object.values(PROVIDERS)
      .flatMap((p) => [deps.secrets.get(p.id), deps.env[p.envVar]])
      .filter((k): k is string => typeof k === 'string' && k.trim() !== '')
      .map((k) => k.trim());
  return {
    grants: (skill) => read()[skill] ?? [],
    grant(skill, hosts) {
      const all = read();
      const next = [...new Set([...(all[skill] ?? []), ...norm(hosts)])].sort();
      all[skill] = next;
      write(all);
      return next;
    },
    revoke(skill, hosts) {
      const all = read();
      const drop = new Set(norm(hosts));
      const next = (all[skill] ?? []).filter((h) => !drop.has(h));
      if (next.length) all[skill] = next;
      else delete all[skill];
      write(all);
      return next;
    },
    secrets(skill, names) {
      const out: Record<string, string> = {};
      // Checked again at each run, not only when stored: a provider key set up after the secret
      // (or the same key pasted inside a longer value) must still never reach a tool.
      const keys = providerKeys();
      for (const n of names) {
        if (PROVIDER_KEY_ENV_NAMES.includes(n.toUpperCase())) continue;
        const v = deps.secrets.get(secretName(skill, n));
        if (v && !holdsKey(v, keys)) out[n] = v;
      }
      return out;
    },
    setSecret(skill, name, value) {
      if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name))
        throw new AppError('INVALID_INPUT', `"${name}" is not an environment variable name`);
      if (PROVIDER_KEY_ENV_NAMES.includes(name.toUpperCase()))
        throw new AppError(
          'FORBIDDEN',
          `refused: ${name} is a model provider's key name; provider keys never reach a skill's tools`,
        );
      const v = value.replace(/\r?\n$/, '');
      if (v && holdsKey(v, providerKeys())) {
        throw new AppError(
          'FORBIDDEN',
          `refused: the value given for ${name} is one of your model provider keys; provider keys never reach a skill's tools. Give the tool a key of its own`,
        );
      }
      deps.secrets.set(secretName(skill, name), v);
    },
    hasSecret: (skill, name) => Boolean(deps.secrets.get(secretName(skill, name))),
  };
}

/** What a skill declares, as the catalog has it (null: no such skill). */
export type DeclaredAccess = (name: string) => { skill: string; network: string[]; tool_env: string[] };

/** The `skill-access/*` slice: the skill detail's grant toggles and secret fields. */
export function createSkillAccessHandlers(deps: { access: () => SkillAccess; declared: DeclaredAccess }) {
  const view = (name: string): SkillAccessView => {
    const d = deps.declared(name);
    const access = deps.access();
    const granted = access.grants(d.skill);
    const declared = d.network.map((h) => h.toLowerCase());
    return {
      skill: d.skill,
      network: declared.map((host) => ({ host, granted: granted.includes(host) })),
      other_grants: granted.filter((h) => !declared.includes(h)),
      tool_env: d.tool_env.map((n) => ({ name: n, has_secret: access.hasSecret(d.skill, n) })),
    };
  };
  return {
    'skill-access/get': (req) => view(req.name),
    'skill-access/set-grant': (req) => {
      const { skill } = deps.declared(req.name);
      if (req.granted) deps.access().grant(skill, [req.host]);
      else deps.access().revoke(skill, [req.host]);
      return view(req.name);
    },
    'skill-access/set-secret': (req) => {
      const d = deps.declared(req.name);
      if (!d.tool_env.includes(req.variable)) {
        throw new AppError(
          'INVALID_INPUT',
          `skill "${d.skill}" does not name ${req.variable} in tool_env${d.tool_env.length ? ` (it names ${d.tool_env.join(', ')})` : ''}`,
        );
      }
      deps.access().setSecret(d.skill, req.variable, req.value);
      return view(req.name);
    },
  } satisfies HandlersFor<'skill-access'>;
}
