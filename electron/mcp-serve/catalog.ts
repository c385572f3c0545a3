/**
 * The skill catalog as `mcp serve` serves it (SEP-2640): every skill an Agent Skills folder of
 * `skill://<name>/<path>` files, each with its SHA-256 digest and size, indexed by URI.
 *
 * Built once, then kept current from the catalog's change log (`skills/changes`, the log phase 1
 * follows), so a request costs a map lookup and a change costs the skills it touched — not a
 * rebuild of thousands of folders per request.
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import YAML from 'yaml';
import type { CatalogChangesRes, SkillDetail, SkillScope } from '../contract/skills.js';
import { skillSlug, skillToAgentFiles } from '../skills/index.js';
import type { Skill } from '../store/index.js';
import { skillNameKey } from '../store/index.js';
import type { CoreClient } from '../transport/index.js';

/** Skills per page of the change log while the catalog is first listed. */
const PAGE = 100;
/** Let the event loop run what is waiting (I/O included) before going on. */
const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One file of a served skill. */
export interface ServedFile {
  uri: string;
  path: string;
  bytes: Buffer;
  mimeType: string;
  digest: string;
  size: number;
}

/** A SEP-2640 `Skill` entry. */
export interface SkillEntry {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: Array<{ uri: string; digest: string; size: number }>;
}

/** A child of a directory resource (`resources/directory/read`). */
export interface DirectoryChild {
  uri: string;
  name: string;
  mimeType: string;
  size?: number;
}

/** One skill as served. */
export interface ServedSkill {
  /** `scope:id` of the stored skill it comes from. */
  source: string;
  name: string;
  slug: string;
  description: string;
  entry: SkillEntry;
  files: ServedFile[];
  /** Directory URI (the skill root and each subfolder, no trailing slash) → its direct children. */
  dirs: Map<string, DirectoryChild[]>;
}

export const DIRECTORY_MIME = 'inode/directory';
/** Agent Skills' limits on the frontmatter every strict client checks. */
export const MAX_NAME_CHARS = 64;
export const MAX_DESCRIPTION_CHARS = 1024;
/** What ends a description served shorter than it is stored. */
export const CUT_MARKER = ' […]';
const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** Whether `name` is a valid Agent Skills name (1–64 lowercase letters, digits, single inner hyphens). */
export function isValidSkillName(name: string): boolean {
  return name.length <= MAX_NAME_CHARS && SLUG.test(name);
}

/**
 * The name a skill is served under: its slug, cut to `max` characters without leaving a hyphen at
 * the end, so it is a valid Agent Skills name whatever the stored name holds.
 */
export function servedSlug(name: string, max = MAX_NAME_CHARS): string {
  const slug = skillSlug(name).slice(0, max).replace(/-+$/, '').replace(/-{2,}/g, '-');
  return isValidSkillName(slug) ? slug : 'skill';
}

/**
 * A description within Agent Skills' 1,024 characters: a longer one is cut at the last word
 * boundary that leaves room for {@link CUT_MARKER} (the stored skill and its exported SKILL.md keep
 * every character); an empty one is served as the skill's name, since strict clients refuse an
 * empty description.
 */
export function servedDescription(description: string, name: string): string {
  const chars = Array.from(description.trim());
  if (chars.length === 0) return name.trim() || 'A skill.';
  if (chars.length <= MAX_DESCRIPTION_CHARS) return description;
  const room = MAX_DESCRIPTION_CHARS - Array.from(CUT_MARKER).length;
  const head = chars.slice(0, room + 1).join('');
  // The last whitespace within room: a word is never split unless one word fills the room.
  const cut = head.search(/\s\S*$/);
  const kept = Array.from(cut > 0 ? head.slice(0, cut) : head)
    .slice(0, room)
    .join('')
    .trimEnd();
  return `${kept}${CUT_MARKER}`;
}
/** SEP-2640's limits on one skill: files (SKILL.md included) and their total bytes. */
export const MAX_FILES_PER_SKILL = 512;
export const MAX_BYTES_PER_SKILL = 16 * 1024 * 1024;

const MIME: Record<string, string> = {
  md: 'text/markdown',
  py: 'text/x-python',
  json: 'application/json',
  txt: 'text/plain',
  csv: 'text/csv',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  html: 'text/html',
  js: 'text/javascript',
  ts: 'text/plain',
};

function mimeOf(path: string): string {
  return MIME[path.split('.').pop()?.toLowerCase() ?? ''] ?? 'application/octet-stream';
}

/**
 * Whether a file goes out as `text` (else base64 `blob`): a text type whose bytes are valid UTF-8,
 * so the text a client re-encodes is byte for byte what the entry's digest and size describe.
 */
export function sentAsText(file: { mimeType: string; bytes: Buffer }): boolean {
  const m = file.mimeType;
  return (m.startsWith('text/') || m.endsWith('json') || m.endsWith('yaml')) && isUtf8(file.bytes);
}

const digestOf = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/**
 * A skill's Agent Skills folder under `slug`, with the frontmatter `name` set to the slug (SEP-2640:
 * the URI's last segment equals the frontmatter name, which Agent Skills keeps to lowercase
 * letters, digits and hyphens); the display name stays in `metadata.display-name`. Null when the
 * skill cannot be written as a folder (an unsafe file path): it is left out rather than failing
 * the whole catalog.
 */
export function serveSkill(detail: SkillDetail, slug: string): ServedSkill | null {
  const asSkill = {
    ...detail,
    artifacts: detail.artifacts.map((a) => ({ ...a, state_blob: null })),
  } as unknown as Skill;
  let files: Map<string, Buffer>;
  let generated: Record<string, unknown> | undefined;
  try {
    const folder = skillToAgentFiles(asSkill);
    files = folder.files;
    generated = folder.frontmatter;
  } catch {
    return null;
  }
  const skillMd = files.get('SKILL.md')?.toString('utf8') ?? '';
  const m = /^---\n([\s\S]*?)\n---\n?([\s\S]*)$/.exec(skillMd);
  // A header the export generated comes with its data (parsing it back was a quarter of serving a
  // skill); an author's header written back is read.
  const frontmatter = (generated ?? (m ? YAML.parse(m[1]!) : null) ?? {}) as Record<string, unknown>;
  let changed = false;
  if (frontmatter.name !== slug) {
    frontmatter.metadata = { ...((frontmatter.metadata as object) ?? {}), 'display-name': detail.name };
    frontmatter.name = slug;
    changed = true;
  }
  const description = servedDescription(
    typeof frontmatter.description === 'string' ? frontmatter.description : (detail.description ?? ''),
    detail.name,
  );
  if (frontmatter.description !== description) {
    frontmatter.description = description;
    changed = true;
  }
  // A changed SKILL.md is written from the same object the entry carries, so the two are identical
  // field by field, as hosts verify; an unchanged one already is (the entry was parsed from it).
  if (changed) {
    files.set(
      'SKILL.md',
      Buffer.from(`---\n${YAML.stringify(frontmatter, { lineWidth: 0 })}---\n${m?.[2] ?? ''}`),
    );
  }
  // The extension's per-skill limits, which every host accepts: a skill past them is not served.
  let total = 0;
  for (const b of files.values()) total += b.length;
  if (files.size > MAX_FILES_PER_SKILL || total > MAX_BYTES_PER_SKILL) return null;
  const root = `skill://${slug}`;
  const served: ServedFile[] = [...files]
    .sort(([a], [b]) => (a === 'SKILL.md' ? -1 : b === 'SKILL.md' ? 1 : a < b ? -1 : a > b ? 1 : 0))
    .map(([path, bytes]) => ({
      uri: `${root}/${path}`,
      path,
      bytes,
      mimeType: mimeOf(path),
      digest: digestOf(bytes),
      size: bytes.length,
    }));
  const dirs = new Map<string, DirectoryChild[]>([[root, []]]);
  const dirOf = (uri: string): DirectoryChild[] => {
    let d = dirs.get(uri);
    if (!d) {
      d = [];
      dirs.set(uri, d);
      const parent = uri.slice(0, uri.lastIndexOf('/'));
      dirOf(parent).push({ uri, name: uri.slice(parent.length + 1), mimeType: DIRECTORY_MIME });
    }
    return d;
  };
  for (const f of served) {
    const parent = f.uri.slice(0, f.uri.lastIndexOf('/'));
    dirOf(parent).push({ uri: f.uri, name: f.path.split('/').pop()!, mimeType: f.mimeType, size: f.size });
  }
  return {
    source: `${detail.scope}:${detail.id}`,
    name: detail.name,
    slug,
    description: String(frontmatter.description ?? ''),
    entry: {
      uri: `${root}/SKILL.md`,
      frontmatter,
      resources: served.map((f) => ({ uri: f.uri, digest: f.digest, size: f.size })),
    },
    files: served,
    dirs,
  };
}

/** A skill's place in a view: its served name, and its folder built the first time it is asked for. */
export interface ServedSlot {
  readonly slug: string;
  /** The stored name. */
  readonly name: string;
  /** The skill as served (built once per stored version), or null when it cannot be served. */
  served(): ServedSkill | null;
}

/**
 * The catalog served at one moment: immutable, so a request in flight keeps a consistent view.
 *
 * Which skills are served and under which names is settled when the view is made; a skill's
 * folder (its export, digests and directories, about a millisecond each) is built when a request
 * first needs it. A client's first `skills/list` then costs one page of folders instead of the
 * whole catalog's (14 s at 10,000 skills, all of it before the first answer).
 */
export class ServedView {
  private readonly bySlug = new Map<string, ServedSlot>();
  /** Stored name (as the catalog compares names) → the skill, for names that are not their slug. */
  private readonly byStoredName = new Map<string, ServedSlot>();

  /** `slots` in served-name order. */
  constructor(private readonly slots: readonly ServedSlot[]) {
    for (const s of slots) {
      this.bySlug.set(s.slug, s);
      if (s.name !== s.slug) this.byStoredName.set(skillNameKey(s.name), s);
    }
  }

  /** How many skills the view names (one that turns out unservable is left out of its page). */
  get length(): number {
    return this.slots.length;
  }

  /** The served skills among slots `start` to `end` (as a page is cut). */
  slice(start: number, end: number): ServedSkill[] {
    const out: ServedSkill[] = [];
    for (const slot of this.slots.slice(start, end)) {
      const s = slot.served();
      if (s) out.push(s);
    }
    return out;
  }

  /** Every served skill, built now: for walks of the whole catalog. */
  get skills(): ServedSkill[] {
    return this.slice(0, this.slots.length);
  }

  /** The skill whose folder holds `uri` (a `skill://` URI under its served name). */
  private skillOf(uri: string): ServedSkill | null {
    const m = /^skill:\/\/([^/]+)(?:\/|$)/.exec(uri);
    return (m && this.bySlug.get(m[1]!)?.served()) ?? null;
  }

  /** The skill whose SKILL.md is at `uri`. */
  skillAt(uri: string): ServedSkill | undefined {
    const s = this.skillOf(uri);
    return s && s.entry.uri === uri ? s : undefined;
  }

  /** The file served at `uri`. */
  fileAt(uri: string): ServedFile | undefined {
    return this.skillOf(uri)?.files.find((f) => f.uri === uri);
  }

  /** The children of the directory resource at `uri`. */
  dirAt(uri: string): DirectoryChild[] | undefined {
    return this.skillOf(uri)?.dirs.get(uri);
  }

  /**
   * The stored name of the skill a client named: by its served name or its stored one. Undefined
   * when neither is served.
   */
  storedName(name: string): string | undefined {
    return (this.bySlug.get(name) ?? this.byStoredName.get(skillNameKey(name)))?.name;
  }

  /**
   * `uri` as served: a `skill://` URI naming the skill by its stored name (percent-encoded or not)
   * becomes the one under its served name; any other URI is returned unchanged.
   */
  servedUri(uri: string): string {
    const m = /^skill:\/\/([^/]+)(\/.*)?$/.exec(uri);
    if (!m || this.bySlug.has(m[1]!)) return uri;
    let name = m[1]!;
    try {
      name = decodeURIComponent(name);
    } catch {
      return uri;
    }
    const s = this.byStoredName.get(skillNameKey(name));
    return s ? `skill://${s.slug}${m[2] ?? ''}` : uri;
  }
}

/**
 * The served catalog, cached: {@link current} asks the core only whether the change log moved (two
 * indexed lookups) and applies what changed. A skill's folder, digests and directories are built
 * once per stored version; the merge (the workspace skill wins a name, slugs made unique) is
 * redone only when something changed.
 */
export class ServedCatalog {
  private cursor: string | undefined;
  private readonly stored: Record<SkillScope, Map<string, SkillDetail>> = {
    account: new Map(),
    workspace: new Map(),
  };
  /** `scope:id` → the skill as last served (undefined until asked for), reused while its stored version and slug hold. */
  private readonly built = new Map<
    string,
    { detail: SkillDetail; slug: string; served: ServedSkill | null | undefined }
  >();
  private view = new ServedView([]);
  private syncing: Promise<ServedView> | null = null;
  private queued: Promise<ServedView> | null = null;
  private readonly listeners = new Set<() => void>();
  private watchers = 0;
  private timer: NodeJS.Timeout | null = null;
  private built0 = false;
  private progressNow = { done: 0, total: 0 };
  private readonly progressListeners = new Set<(p: { done: number; total: number }) => void>();

  private closed = false;

  constructor(private readonly client: CoreClient) {}

  /**
   * Stop asking the core: the server is closing and its store may already be shut. A listing
   * under way ends at its next page with the view it has, never on a closed database.
   */
  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Call `listener` after each sync that changed what is served; returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Follow the change log every `ms` (so a change is heard without a request) until the returned
   * stop is called; watchers share one timer.
   */
  watch(ms: number): () => void {
    this.watchers++;
    if (!this.timer) {
      this.timer = setInterval(() => void this.current().catch(() => {}), ms);
      this.timer.unref();
    }
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      if (--this.watchers === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }

  /** The current view, after catching up with the change log. */
  current(): Promise<ServedView> {
    // One sync at a time. A request arriving while one runs may follow a change that sync began
    // before, so it waits for the next one, which every request arriving meanwhile shares.
    if (this.syncing) {
      this.queued ??= this.syncing
        .catch(() => {})
        .then(() => {
          this.queued = null;
          return this.current();
        });
      return this.queued;
    }
    this.syncing = this.sync().finally(() => {
      this.syncing = null;
    });
    return this.syncing;
  }

  /** True once the first full listing has been served (until then, requests needing it wait). */
  get ready(): boolean {
    return this.built0;
  }

  /** Skills loaded and served so far, and how many there are in all (while the first build runs). */
  get progress(): { done: number; total: number } {
    return { ...this.progressNow };
  }

  /** Call `listener` as the first build advances; returns the unsubscribe. */
  onProgress(listener: (p: { done: number; total: number }) => void): () => void {
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  }

  private report(done: number, total: number): void {
    this.progressNow = { done, total };
    for (const l of [...this.progressListeners]) l({ done, total });
  }

  private async sync(): Promise<ServedView> {
    const first = this.cursor === undefined;
    let touched = false;
    let loaded = 0;
    // The listing comes in pages and the view is built in slices, each a few milliseconds, so a
    // request that needs no catalog (initialize, tools/list, a tool) is answered between them.
    for (;;) {
      if (this.closed) return this.view;
      const r = await this.client.invoke('skills/changes', {
        ...(this.cursor ? { since: this.cursor } : {}),
        limit: PAGE,
      });
      this.cursor = r.cursor;
      if (!r.changed) break;
      touched = this.apply(r) || touched;
      loaded += r.changes.reduce((n, c) => n + c.upserted.length, 0);
      // Progress counts the skills read from the store: serving one is deferred to its first use.
      if (!this.built0) this.report(loaded, loaded + (r.remaining ?? 0));
      if (!r.more) break;
      await yieldNow();
    }
    if (touched) {
      this.view = await this.merge();
      if (!first) for (const l of [...this.listeners]) l();
    }
    this.built0 = true;
    return this.view;
  }

  /** Apply the changes; true when any stored skill came, went or changed. */
  private apply(r: CatalogChangesRes): boolean {
    let touched = false;
    for (const scope of ['account', 'workspace'] as const) {
      if (!r.scopes.includes(scope) && this.stored[scope].size) {
        this.stored[scope].clear();
        touched = true;
      }
    }
    for (const c of r.changes) {
      const map = this.stored[c.scope];
      if (c.reset) {
        if (map.size || c.upserted.length) touched = true;
        map.clear();
      }
      for (const id of c.removed) touched = map.delete(id) || touched;
      for (const d of c.upserted) {
        const was = map.get(d.id);
        if (!c.reset && was && was.updated_at === d.updated_at && JSON.stringify(was) === JSON.stringify(d))
          continue;
        map.set(d.id, d);
        touched = true;
      }
    }
    return touched;
  }

  /** The merged catalog: a workspace skill hides the account one of the same name. */
  private async merge(): Promise<ServedView> {
    const byKey = new Map<string, SkillDetail>();
    for (const d of this.stored.workspace.values()) byKey.set(skillNameKey(d.name), d);
    for (const d of this.stored.account.values()) {
      const k = skillNameKey(d.name);
      if (!byKey.has(k)) byKey.set(k, d);
    }
    const ordered = [...byKey.values()].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1,
    );
    const seen = new Set<string>();
    const slots: ServedSlot[] = [];
    const live = new Set<string>();
    for (const d of ordered) {
      // A skill the user switched off is not served (name-only ones are: a client asks by name).
      if (d.switch === 'off') continue;
      // Two names that fold to the same slug: the later one is served under a suffixed folder
      // (kept within the 64 characters Agent Skills allows a name).
      const base = servedSlug(d.name);
      let slug = base;
      for (let i = 2; seen.has(slug); i++) slug = `${servedSlug(base, 63 - String(i).length)}-${i}`;
      seen.add(slug);
      const key = `${d.scope}:${d.id}`;
      live.add(key);
      let b = this.built.get(key);
      if (!b || b.detail !== d || b.slug !== slug) {
        b = { detail: d, slug, served: undefined };
        this.built.set(key, b);
      }
      const entry = b;
      slots.push({
        slug,
        name: d.name,
        served: () => {
          if (entry.served === undefined) entry.served = serveSkill(entry.detail, entry.slug);
          return entry.served;
        },
      });
    }
    for (const key of this.built.keys()) if (!live.has(key)) this.built.delete(key);
    return new ServedView(slots.sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0)));
  }
}
