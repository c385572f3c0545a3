/**
 * A stored skill as an Agent Skills folder that a re-import restores exactly: SKILL.md (the
 * folder's slug as `name`, SkillDesk's own fields under `metadata.skilldesk`), one file per
 * artifact, and `skilldesk.json` when the Agent Skills conventions alone would not bring the same
 * artifacts back (see `agent-manifest.ts`). An Agent Skill imported and not changed since is
 * written back byte for byte: its frontmatter as the author wrote it, BOMs, line endings and
 * executable bits included.
 */
import YAML from 'yaml';
import { AppError } from '../contract/errors.js';
import { KINDS } from '../kinds/index.js';
import type { Skill, SkillArtifact } from '../store/index.js';
import { MANIFEST_FILE, type ManifestEntry, METADATA_KEY, SKILLDESK_FIELDS } from './agent-manifest.js';
import { agentSkillToPackage, skillSlug, splitFrontmatter } from './agent-skill.js';
import { sortedJson } from './content-hash.js';
import { skillToPackage } from './convert.js';
import { markExecutable } from './file-modes.js';
import { type PackageArtifact, validatePackage } from './package-schema.js';
import { pluginSkillPart } from './plugin-name.js';
import { collision, portablePathProblem, safeRelativePath, type TakenPaths } from './safe-path.js';
import type { FileMap } from './zip.js';

/** Frontmatter keys an export writes from the skill; any other key of an imported SKILL.md is kept. */
const MANAGED = ['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools'];
/** Artifact metadata an export leaves out of the manifest: the file itself carries it. */
const FROM_FILE = new Set(['executable', 'frontmatter']);

/** Whether the body's header is written from the skill alone (its kind adds keys of its own). */
const ownHeader = (a: SkillArtifact) => KINDS[a.kind].agentSkills.frontmatter !== undefined;

/**
 * The artifact whose content is SKILL.md's body: the one whose kind claims it most strongly (an
 * LLM skill's prompt, else its instructions), the first among equals.
 */
function bodyArtifact(skill: Skill): SkillArtifact | undefined {
  let best: SkillArtifact | undefined;
  let rank = Number.POSITIVE_INFINITY;
  for (const a of skill.artifacts) {
    const r = KINDS[a.kind].agentSkills.body?.(a) ?? null;
    if (r !== null && r < rank) {
      best = a;
      rank = r;
    }
  }
  return best;
}

/** The `name` an imported SKILL.md gives itself, or null (no such header, or it does not parse). */
function authorsName(body: SkillArtifact | undefined): string | null {
  const raw = body && !ownHeader(body) ? body.metadata?.frontmatter : undefined;
  if (typeof raw !== 'string') return null;
  try {
    const data = splitFrontmatter(raw, 'SKILL.md').data as Record<string, unknown> | null;
    return typeof data?.name === 'string' ? data.name.trim() : null;
  } catch {
    return null;
  }
}

/**
 * The folder name a skill exports under: its slug, or for a plugin's skill (`discord:access`) the
 * name its own SKILL.md gives it (`access`), so the folder is the author's as it came.
 */
export function agentFolderSlug(skill: Skill): string {
  const own = authorsName(bodyArtifact(skill));
  const part = own ? pluginSkillPart(skill.name, own) : null;
  return part && skillSlug(part) === part ? part : skillSlug(skill.name);
}

/** See the module comment. `skipped` lists artifacts that could not be placed (none today). */
export function buildAgentFiles(skill: Skill): AgentFiles {
  const slug = agentFolderSlug(skill);
  const files: FileMap = new Map();
  const skipped: string[] = [];
  const taken: TakenPaths = new Map();
  collision(taken, 'SKILL.md');
  collision(taken, MANIFEST_FILE);
  const body = bodyArtifact(skill);
  const header = headerFor(skill, slug, body);
  files.set('SKILL.md', Buffer.from(header.text + (body?.content ?? ''), 'utf8'));
  const entries: Record<string, ManifestEntry> = {};
  const place = (a: SkillArtifact, path: string, bytes: Buffer) => {
    files.set(path, bytes);
    if (a.metadata?.executable === true) markExecutable(files, path);
    entries[path] = entryOf(a);
  };
  // Files with a path of their own first (bundled files, scripts, components): they keep it.
  const rest: SkillArtifact[] = [];
  for (const a of skill.artifacts) {
    if (a === body) continue;
    const native = nativePath(a);
    if (!native) {
      rest.push(a);
      continue;
    }
    const where = `${skill.name}: artifact "${a.name}"`;
    const rel = safeRelativePath(native, where);
    const problem = portablePathProblem(rel);
    if (problem) {
      throw new AppError('UNSAFE_PATH', `${where}: the file path "${rel}" ${problem}; nothing was written`, {
        path: rel,
      });
    }
    if (files.has(rel) || collision(taken, rel)) {
      skipped.push(a.name);
      continue;
    }
    place(a, rel, bytesOf(a));
  }
  // The rest (templates, examples, a second instructions text) get a file named after them.
  for (const a of rest) {
    const path = freePath(files, taken, generatedPath(a));
    place(a, path, bytesOf(a));
    if (a.state_blob != null) {
      const state = freePath(files, taken, `templates/${skillSlug(a.name)}.dspy-state.json`);
      files.set(state, Buffer.from(a.state_blob));
      entries[path] = { ...entries[path]!, state_file: state };
    }
  }
  // An artifact with no file of its own (a template, a second instructions text) or one left out
  // would never come back as it is without the manifest: no need to try the round trip (which
  // parses the whole folder again, a third of a served skill's cost).
  if (rest.length > 0 || skipped.length > 0 || needsManifest(skill, files)) {
    const manifest = { skilldesk_manifest: 1, body: body ? entryOf(body) : null, files: entries };
    files.set(MANIFEST_FILE, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8'));
  }
  return header.data ? { files, skipped, frontmatter: header.data } : { files, skipped };
}

/** An Agent Skills folder's files, what could not be placed, and SKILL.md's frontmatter as data. */
export interface AgentFiles {
  files: FileMap;
  skipped: string[];
  /**
   * The frontmatter SKILL.md was written from, when it was generated from the skill (not an
   * author's header written back), so a caller need not parse the YAML it was just given. Its own
   * copy.
   */
  frontmatter?: Record<string, unknown>;
}

function bytesOf(a: SkillArtifact): Buffer {
  return a.metadata?.encoding === 'base64'
    ? Buffer.from(a.content, 'base64')
    : Buffer.from(a.content, 'utf8');
}

function entryOf(a: SkillArtifact): ManifestEntry {
  const e: ManifestEntry = { kind: a.kind, name: a.name, ordinal: a.ordinal };
  if (a.model_variant != null) e.model_variant = a.model_variant;
  const meta = Object.fromEntries(Object.entries(a.metadata ?? {}).filter(([k]) => !FROM_FILE.has(k)));
  if (Object.keys(meta).length > 0) e.metadata = meta;
  return e;
}

/** Where the kind puts the artifact in an Agent Skills folder as a file of its own, if anywhere. */
function nativePath(a: SkillArtifact): string | null {
  return KINDS[a.kind].agentSkills.path(a, skillSlug);
}

/** A file name (the kind's rule) for an artifact the Agent Skills format has no place for. */
function generatedPath(a: SkillArtifact): string {
  const base = skillSlug(a.name) + (a.model_variant ? `.${skillSlug(a.model_variant)}` : '');
  return KINDS[a.kind].agentSkills.file(a, base);
}

/** `path`, or `path` with `-2`, `-3` … before its extension, whichever is free. */
function freePath(files: FileMap, taken: TakenPaths, path: string): string {
  const slash = path.lastIndexOf('/');
  const dot = path.indexOf('.', slash + 1);
  const [stem, ext] = dot > 0 ? [path.slice(0, dot), path.slice(dot)] : [path, ''];
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? path : `${stem}-${n}${ext}`;
    if (files.has(candidate)) continue;
    const trial: TakenPaths = new Map(taken);
    if (collision(trial, candidate)) continue;
    collision(taken, candidate);
    return candidate;
  }
}

/**
 * Whether a re-import without a manifest would bring back other artifacts than the skill has
 * (other names, kinds, order or metadata): the folder's conventions are tried on the files
 * themselves, so the manifest is written exactly when it is needed.
 */
function needsManifest(skill: Skill, files: FileMap): boolean {
  try {
    const raw = agentSkillToPackage(files, 'export');
    return canonical(raw.artifacts as PackageArtifact[]) !== canonical(skillToPackage(skill).artifacts);
  } catch {
    return true;
  }
}

function canonical(artifacts: ReadonlyArray<PackageArtifact>): string {
  return sortedJson(
    artifacts
      .map((a, i) => ({
        kind: a.kind,
        name: a.name,
        ordinal: a.ordinal ?? i,
        model_variant: a.model_variant ?? null,
        content: a.content,
        metadata: a.metadata && Object.keys(a.metadata).length > 0 ? a.metadata : null,
        state_blob: a.state_blob ?? null,
      }))
      .sort((x, y) => x.ordinal - y.ordinal || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0)),
  );
}

/** The frontmatter an export writes for the skill (keys in the order the standard lists them). */
function frontmatterOf(skill: Skill, slug: string, body: SkillArtifact | undefined): Record<string, unknown> {
  const fm: Record<string, unknown> = { name: slug, description: skill.description };
  if (skill.license != null) fm.license = skill.license;
  if (skill.compatibility != null) fm.compatibility = skill.compatibility;
  const metadata: Record<string, unknown> = { ...(skill.metadata ?? {}) };
  if (skill.version !== '1.0.0' || metadata.version !== undefined) metadata.version = skill.version;
  const own: Record<string, unknown> = {};
  for (const k of SKILLDESK_FIELDS) {
    const v =
      k === 'name'
        ? skill.name === slug
          ? null
          : skill.name
        : (skill as unknown as Record<string, unknown>)[k];
    if (v == null || v === false || (Array.isArray(v) && v.length === 0)) continue;
    // A built-in skill exported is the user's copy: "system" is never claimed by a package.
    if (k === 'source' && v !== 'community') continue;
    own[k] = v;
  }
  if (Object.keys(own).length > 0) metadata[METADATA_KEY] = own;
  if (Object.keys(metadata).length > 0) fm.metadata = metadata;
  if (skill.allowed_tools != null) fm['allowed-tools'] = skill.allowed_tools;
  // Keys the body's kind writes itself (an LLM skill's `mode: llm`, `tools`, `model` …).
  if (body) Object.assign(fm, KINDS[body.kind].agentSkills.frontmatter?.(body));
  return fm;
}

/**
 * YAML as strict readers want it: block style, and every string that a YAML 1.1 reader (PyYAML,
 * strictyaml's users) would take for a date, a boolean or a number quoted.
 */
function yamlOf(value: Record<string, unknown>): string {
  return YAML.stringify(value, { lineWidth: 0, version: '1.1' });
}

/**
 * SKILL.md's frontmatter block. An imported SKILL.md whose fields the skill still has is written
 * back as it came; one whose fields changed is rewritten with the keys SkillDesk does not read
 * (Claude Code's, another tool's) kept in their place, and its BOM and line endings kept.
 */
function headerFor(
  skill: Skill,
  slug: string,
  body: SkillArtifact | undefined,
): { text: string; data?: Record<string, unknown> } {
  const fm = frontmatterOf(skill, slug, body);
  const raw = body && !ownHeader(body) ? body.metadata?.frontmatter : undefined;
  if (typeof raw !== 'string') {
    const text = `---\n${yamlOf(fm)}---\n`;
    // What reading the text back gives: YAML leaves out undefined values; the rest is JSON data.
    return { text, data: JSON.parse(JSON.stringify(fm)) as Record<string, unknown> };
  }
  if (sameFields(raw, skill)) return { text: raw };
  let data: Record<string, unknown> = {};
  try {
    const parsed = splitFrontmatter(raw, 'SKILL.md').data;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      data = parsed as Record<string, unknown>;
  } catch {
    // A header that no longer parses is replaced whole.
  }
  // The version SkillDesk raises on an update is its own record: it goes into the author's
  // frontmatter only where the author keeps a version there.
  const authorsMeta = data.metadata;
  const authorHasVersion =
    !!authorsMeta && typeof authorsMeta === 'object' && 'version' in (authorsMeta as object);
  if (!authorHasVersion && fm.metadata && typeof fm.metadata === 'object') {
    const { version: _v, ...rest } = fm.metadata as Record<string, unknown>;
    if (Object.keys(rest).length > 0) fm.metadata = rest;
    else delete fm.metadata;
  }
  const merged: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    if (!MANAGED.includes(k)) merged[k] = v;
    else if (k === 'metadata') merged[k] = withAuthorsValues(fm.metadata, v);
    else if (fm[k] !== undefined) merged[k] = fm[k];
  }
  for (const [k, v] of Object.entries(fm)) if (!(k in merged)) merged[k] = v;
  const text = `---\n${yamlOf(merged)}---\n`;
  const crlf = /^\uFEFF?---[ \t]*\r\n/.test(raw);
  return { text: (raw.startsWith('\uFEFF') ? '\uFEFF' : '') + (crlf ? text.replace(/\n/g, '\r\n') : text) };
}

/** Whether importing `header` alone gives the skill's name, description, version and other fields. */
function sameFields(header: string, skill: Skill): boolean {
  let pkg: ReturnType<typeof skillToPackage>;
  try {
    const raw = agentSkillToPackage(new Map([['SKILL.md', Buffer.from(header, 'utf8')]]), 'SKILL.md');
    const r = validatePackage(raw);
    if (!r.ok) return false;
    pkg = r.value;
  } catch {
    return false;
  }
  const fields = (p: Record<string, unknown>) => {
    const out: Record<string, unknown> = {};
    // Not the version: an imported skill's version is SkillDesk's record (raised by each update
    // whose source declared none), not a reason to rewrite what the author wrote.
    for (const k of [
      'name',
      'description',
      'license',
      'compatibility',
      'metadata',
      'allowed_tools',
      ...SKILLDESK_FIELDS,
    ]) {
      const v = p[k];
      if (v == null || v === false || (Array.isArray(v) && v.length === 0)) continue;
      if (k === 'metadata' && typeof v === 'object' && Object.keys(v as object).length === 0) continue;
      out[k] = k === 'source' && v === 'system' ? 'user' : v;
    }
    out.source ??= 'user';
    return sortedJson(out);
  };
  const ours = skillToPackage(skill) as unknown as Record<string, unknown>;
  // A plugin's skill is stored as `plugin:skill`; its SKILL.md calls it `skill`.
  if (pluginSkillPart(skill.name, pkg.name)) ours.name = pkg.name;
  return fields(pkg as unknown as Record<string, unknown>) === fields(ours);
}

/**
 * The export's metadata with each list or map the author wrote (kept as its JSON text inside
 * SkillDesk) back in its own form, where the text still matches.
 */
function withAuthorsValues(ours: unknown, theirs: unknown): unknown {
  if (!ours || typeof ours !== 'object' || !theirs || typeof theirs !== 'object') return ours;
  const out: Record<string, unknown> = { ...(ours as Record<string, unknown>) };
  for (const [k, v] of Object.entries(theirs as Record<string, unknown>)) {
    if (v && typeof v === 'object' && typeof out[k] === 'string' && out[k] === JSON.stringify(v)) out[k] = v;
  }
  return out;
}
