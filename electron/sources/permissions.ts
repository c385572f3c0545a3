/**
 * What a skill can do, listed before its first use: read from the package itself, so the list
 * shown at install is the list the stored skill has. A change of this list between the installed
 * skill and the upstream one is a change the user accepts like any other.
 */
import type { PermissionChange, SkillPermissions } from '../contract/sources.js';
import { HOST_FUNCTION_EFFECTS, KINDS, skillEffects } from '../kinds/index.js';
import type { SkillPackage } from '../skills/index.js';

export type { PermissionChange, SkillPermissions };

const URL_HOST = /\bhttps?:\/\/([A-Za-z0-9.-]+\.[A-Za-z]{2,}|\d{1,3}(?:\.\d{1,3}){3}|localhost)(?::\d+)?/g;

// Licence texts cite the licence's home page (www.apache.org, www.gnu.org): a URL there is no host
// the skill's code or instructions reach.
const LICENCE_FILE = /(?:^|\/)(?:LICEN[CS]E|NOTICE|COPYING|COPYRIGHT)(?:[._-][^/]*)?$/i;

const sorted = (s: Iterable<string>) => [...new Set(s)].sort();

/** The permissions of a package. */
export function packagePermissions(pkg: SkillPackage): SkillPermissions {
  const model = new Set<string>();
  const pages = new Set<string>();
  const scripts = new Set<string>();
  const imports = new Set<string>();
  const packages = new Set<string>();
  const hosts = new Set<string>();
  for (const a of pkg.artifacts) {
    const path = typeof a.metadata?.path === 'string' ? a.metadata.path : a.name;
    // What each artifact implies is its kind's to say (electron/kinds/<kind>/).
    const r = KINDS[a.kind].review(a, HOST_FUNCTION_EFFECTS);
    if (r.calls_model) model.add(a.name);
    if (r.script) scripts.add(r.script);
    for (const f of r.pages ?? []) pages.add(f);
    for (const f of r.imports ?? []) imports.add(f);
    for (const p of r.packages ?? []) packages.add(p);
    if (r.binary) continue;
    if (a.metadata?.encoding === 'base64' || LICENCE_FILE.test(path)) continue;
    for (const m of a.content.matchAll(URL_HOST)) hosts.add(m[1]!.toLowerCase());
  }
  const mcp = new Set<string>();
  const tools = new Set<string>();
  for (const t of (pkg.allowed_tools ?? '').split(/[\s,]+/).filter(Boolean)) {
    if (t.startsWith('mcp__')) mcp.add(t);
    else tools.add(t);
  }
  const budget = Number(pkg.metadata?.max_llm_calls);
  const effects = skillEffects({
    metadata: pkg.metadata ?? null,
    allowed_tools: pkg.allowed_tools ?? null,
    artifacts: pkg.artifacts.map((a) => ({
      name: a.name,
      kind: a.kind,
      content: a.content,
      metadata: (a.metadata as Record<string, unknown> | undefined) ?? null,
    })),
  }).effects;
  return {
    model_calls: sorted(model),
    model_call_budget: Number.isFinite(budget) && budget >= 0 ? budget : null,
    pages_read: sorted(pages),
    mcp_tools: sorted(mcp),
    allowed_tools: sorted(tools),
    scripts: sorted(scripts),
    component_imports: sorted(imports),
    packages: sorted(packages),
    network_hosts: sorted(hosts),
    effects: sorted(effects),
  };
}

/** How the permissions differ (from installed → to upstream); empty when the same. */
export function diffPermissions(from: SkillPermissions | null, to: SkillPermissions): PermissionChange[] {
  const out: PermissionChange[] = [];
  for (const key of Object.keys(to) as Array<keyof SkillPermissions>) {
    const list = (p: SkillPermissions | null) => {
      const v = p?.[key];
      return v == null ? [] : Array.isArray(v) ? v : [String(v)];
    };
    const a = new Set(list(from));
    const b = new Set(list(to));
    const added = [...b].filter((x) => !a.has(x));
    const removed = [...a].filter((x) => !b.has(x));
    if (added.length || removed.length) out.push({ permission: key, added, removed });
  }
  return out;
}

/** The permissions in a few words per line, for the CLI. */
export function describePermissions(p: SkillPermissions): string[] {
  const lines: string[] = [];
  const put = (label: string, v: string[]) => {
    if (v.length) lines.push(`${label}: ${v.join(', ')}`);
  };
  put('model calls', p.model_calls);
  if (p.model_call_budget !== null) lines.push(`model call budget: ${p.model_call_budget}`);
  put('pages read', p.pages_read);
  put('MCP tools', p.mcp_tools);
  put('allowed tools', p.allowed_tools);
  put('scripts', p.scripts);
  put('component imports', p.component_imports);
  put('packages', p.packages);
  put('network hosts', p.network_hosts);
  put('effects', p.effects);
  return lines;
}

/**
 * Where a skill's scripts would run, in words, from what it bundles: Python runs in the Pyodide
 * sandbox; packages with compiled code need CPython in the OS sandbox, which runs only once the
 * user accepts it for the skill (which packages those are is known only when pip fetches them, so
 * this says when it may happen); scripts in other languages are never run. Null when it has none.
 */
export function scriptRuntime(p: Pick<SkillPermissions, 'scripts' | 'packages'>): string | null {
  if (p.scripts.length === 0) return null;
  const python = p.scripts.filter((s) => !/\.[a-z0-9]+$/i.test(s) || /\.py$/i.test(s));
  const other = p.scripts.filter((s) => /\.(?:sh|js|mjs|ts|rb|pl|ps1)$/i.test(s));
  const parts: string[] = [];
  if (python.length > 0) {
    parts.push('Python in the Pyodide sandbox (no network)');
    if (p.packages.length > 0)
      parts.push('a package with compiled code needs the OS-sandbox runtime, asked for separately');
  }
  if (other.length > 0) parts.push(`${other.join(', ')} not run (Python only)`);
  return parts.join('; ');
}
