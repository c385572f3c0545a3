import { createHash } from 'node:crypto';
import { type Dirent, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { type Db, writeTransaction } from '../store/index.js';

/** A page as returned to callers (and to Python through the host functions). */
export interface WorkspacePage {
  slug: string;
  path: string;
  title: string;
  type: string | null;
  tags: string[];
  frontmatter: Record<string, unknown>;
  body: string;
  links: string[];
  updated_at: string;
}

/** A page without its body. */
export interface WorkspacePageSummary {
  slug: string;
  path: string;
  title: string;
  type: string | null;
  tags: string[];
}

/** One search hit. */
export interface WorkspaceSearchHit extends WorkspacePageSummary {
  snippet: string;
  score: number;
}

/** One indexed version of a page. */
export interface WorkspaceRevision {
  revision: number;
  title: string;
  hash: string;
  size: number;
  created_at: string;
}

/** What {@link indexWorkspacePages} changed. */
export interface IndexReport {
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  skipped: string[];
}

/** Bounds of the indexer (a workspace folder is user data; keep a runaway folder from stalling). */
export interface IndexOptions {
  maxFiles?: number;
  maxFileBytes?: number;
  now?: () => Date;
}

const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn', '.venv', '__pycache__']);

/** Lower-case, dash-separated form of a page name: what `[[links]]` resolve to. */
export function slugify(name: string): string {
  return (
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}/]+/gu, '-')
      .replace(/-*\/-*/g, '/')
      .replace(/^-+|-+$/g, '') || 'page'
  );
}

/** The page names a Markdown body links to with `[[Name]]`, `[[Name|alias]]` or `[[Name#heading]]`. */
export function extractLinks(body: string): Array<{ slug: string; text: string }> {
  const out = new Map<string, string>();
  for (const m of body.matchAll(/\[\[([^\]\n|#]+)(?:#[^\]\n|]*)?(?:\|[^\]\n]*)?\]\]/g)) {
    const text = m[1]!.trim();
    if (!text) continue;
    const base = text.split('/').pop()!;
    out.set(slugify(base), text);
  }
  return [...out].map(([slug, text]) => ({ slug, text }));
}

/** Split `---\nyaml\n---\nbody`; a malformed header is left in the body and ignored. */
export function parseFrontmatter(text: string): { frontmatter: Record<string, unknown>; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) return { frontmatter: {}, body: text };
  try {
    const data = parseYaml(m[1]!, { maxAliasCount: 50 }) as unknown;
    if (data && typeof data === 'object' && !Array.isArray(data)) {
      return {
        frontmatter: JSON.parse(JSON.stringify(data)) as Record<string, unknown>,
        body: text.slice(m[0].length),
      };
    }
  } catch {
    // fall through: not frontmatter we understand
  }
  return { frontmatter: {}, body: text };
}

function tagsOf(frontmatter: Record<string, unknown>): string[] {
  const raw = frontmatter.tags ?? frontmatter.tag;
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(/[,\s]+/) : [];
  return [...new Set(list.map((t) => String(t).replace(/^#/, '').trim()).filter(Boolean))].sort();
}

function titleOf(frontmatter: Record<string, unknown>, body: string, path: string): string {
  if (typeof frontmatter.title === 'string' && frontmatter.title.trim()) return frontmatter.title.trim();
  const h1 = /^#\s+(.+)$/m.exec(body);
  if (h1) return h1[1]!.trim();
  return path.split('/').pop()!.replace(/\.md$/i, '');
}

function listMarkdown(dir: string, maxFiles: number, skipped: string[]): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      if (e.name.startsWith('.') || SKIP_DIRS.has(e.name)) continue;
      const abs = join(d, e.name);
      if (e.isDirectory()) walk(abs);
      else if (e.isFile() && /\.md$/i.test(e.name)) {
        if (out.length >= maxFiles) {
          skipped.push(relative(dir, abs).split(sep).join('/'));
          continue;
        }
        out.push(abs);
      }
    }
  };
  walk(dir);
  return out;
}

/**
 * Index the Markdown files under `dir` into the workspace pages tables: new and changed files are
 * (re)written with a new revision, vanished ones removed (their history stays). Symlinks and
 * dot-folders are not followed. Idempotent: an unchanged folder changes nothing.
 */
export function indexWorkspacePages(db: Db, dir: string, opts: IndexOptions = {}): IndexReport {
  const maxFiles = opts.maxFiles ?? 10_000;
  const maxBytes = opts.maxFileBytes ?? 2 * 1024 * 1024;
  const now = (opts.now ?? (() => new Date()))().toISOString();
  const report: IndexReport = { added: 0, updated: 0, removed: 0, unchanged: 0, skipped: [] };
  const files = listMarkdown(dir, maxFiles, report.skipped);

  const existing = new Map(
    (
      db.prepare('SELECT id, path, slug, hash FROM workspace_pages').all() as Array<{
        id: number;
        path: string;
        slug: string;
        hash: string;
      }>
    ).map((r) => [r.path, r]),
  );
  const parsed: Array<{ path: string; text: string; hash: string; size: number; mtime: number }> = [];
  for (const abs of files) {
    const path = relative(dir, abs).split(sep).join('/');
    try {
      const st = statSync(abs);
      if (st.size > maxBytes) {
        report.skipped.push(path);
        continue;
      }
      const buf = readFileSync(abs);
      parsed.push({
        path,
        text: buf.toString('utf8'),
        hash: createHash('sha256').update(buf).digest('hex'),
        size: st.size,
        mtime: Math.round(st.mtimeMs),
      });
    } catch {
      report.skipped.push(path);
    }
  }

  // Slugs: the file's base name; a clash falls back to the path (deterministic: sorted by path).
  const baseCount = new Map<string, number>();
  for (const p of parsed) {
    const b = slugify(p.path.split('/').pop()!.replace(/\.md$/i, ''));
    baseCount.set(b, (baseCount.get(b) ?? 0) + 1);
  }
  const slugFor = (path: string) => {
    const b = slugify(path.split('/').pop()!.replace(/\.md$/i, ''));
    return baseCount.get(b) === 1 ? b : slugify(path.replace(/\.md$/i, ''));
  };

  const upsert = db.prepare(`
    INSERT INTO workspace_pages (path, slug, title, type, tags, frontmatter, body, hash, size, mtime_ms, updated_at)
    VALUES (@path, @slug, @title, @type, @tags, @frontmatter, @body, @hash, @size, @mtime, @now)
    ON CONFLICT(path) DO UPDATE SET slug=excluded.slug, title=excluded.title, type=excluded.type, tags=excluded.tags,
      frontmatter=excluded.frontmatter, body=excluded.body, hash=excluded.hash, size=excluded.size,
      mtime_ms=excluded.mtime_ms, updated_at=excluded.updated_at
    RETURNING id`);
  const addRevision = db.prepare(`
    INSERT INTO workspace_page_revisions (path, revision, title, hash, size, body, created_at)
    VALUES (@path, (SELECT COALESCE(MAX(revision), 0) + 1 FROM workspace_page_revisions WHERE path = @path),
            @title, @hash, @size, @body, @now)`);
  const clearTags = db.prepare('DELETE FROM workspace_page_tags WHERE page_id = ?');
  const addTag = db.prepare('INSERT OR IGNORE INTO workspace_page_tags (page_id, tag) VALUES (?, ?)');
  const clearLinks = db.prepare('DELETE FROM workspace_page_links WHERE page_id = ?');
  const addLink = db.prepare(
    'INSERT OR IGNORE INTO workspace_page_links (page_id, target_slug, target_text) VALUES (?, ?, ?)',
  );
  const remove = db.prepare('DELETE FROM workspace_pages WHERE id = ?');
  const setSlug = db.prepare('UPDATE workspace_pages SET slug = ? WHERE id = ?');

  writeTransaction(db, () => {
    const seen = new Set(parsed.map((p) => p.path));
    for (const [path, row] of existing) {
      if (!seen.has(path)) {
        remove.run(row.id);
        report.removed++;
      }
    }
    // Free every slug first so renames between pages cannot collide on the UNIQUE index.
    for (const p of parsed) {
      const row = existing.get(p.path);
      if (row && row.slug !== slugFor(p.path)) setSlug.run(`\u0000${row.id}`, row.id);
    }
    for (const p of parsed) {
      const row = existing.get(p.path);
      const slug = slugFor(p.path);
      if (row && row.hash === p.hash) {
        if (row.slug !== slug) setSlug.run(slug, row.id);
        report.unchanged++;
        continue;
      }
      const { frontmatter, body } = parseFrontmatter(p.text);
      const tags = tagsOf(frontmatter);
      const title = titleOf(frontmatter, body, p.path);
      const type = typeof frontmatter.type === 'string' ? frontmatter.type : null;
      const { id } = upsert.get({
        path: p.path,
        slug,
        title,
        type,
        tags: JSON.stringify(tags),
        frontmatter: JSON.stringify(frontmatter),
        body,
        hash: p.hash,
        size: p.size,
        mtime: p.mtime,
        now,
      }) as { id: number };
      clearTags.run(id);
      for (const t of tags) addTag.run(id, t);
      clearLinks.run(id);
      for (const l of extractLinks(body)) addLink.run(id, l.slug, l.text);
      addRevision.run({ path: p.path, title, hash: p.hash, size: p.size, body, now });
      if (row) report.updated++;
      else report.added++;
    }
  });
  return report;
}

interface PageRow {
  id: number;
  slug: string;
  path: string;
  title: string;
  type: string | null;
  tags: string;
  frontmatter: string;
  body: string;
  updated_at: string;
}

/** FTS5 query from free text: each word quoted (no operators reach FTS5), any word may match. */
function ftsQuery(text: string): string | null {
  const words = text.match(/[\p{L}\p{N}_]+/gu)?.slice(0, 32) ?? [];
  if (words.length === 0) return null;
  return words.map((w) => `"${w}"`).join(' OR ');
}

/** Read-side queries over the indexed pages; what the sandbox host functions call. */
export class WorkspacePages {
  constructor(private readonly db: Db) {}

  /** Full-text search, best first. */
  search(query: string, limit = 10): WorkspaceSearchHit[] {
    const q = ftsQuery(query);
    if (!q) return [];
    const rows = this.db
      .prepare(
        `SELECT p.slug, p.path, p.title, p.type, p.tags,
                snippet(workspace_pages_fts, 1, '', '', '…', 16) AS snippet, bm25(workspace_pages_fts, 5.0, 1.0, 3.0) AS score
           FROM workspace_pages_fts JOIN workspace_pages p ON p.id = workspace_pages_fts.rowid
          WHERE workspace_pages_fts MATCH ? ORDER BY score LIMIT ?`,
      )
      .all(q, limit) as Array<PageRow & { snippet: string; score: number }>;
    return rows.map((r) => ({
      ...summary(r),
      snippet: r.snippet,
      score: Number((-r.score).toPrecision(4)),
    }));
  }

  /** One page by slug, path, or title-as-slug; null when missing. */
  getPage(ref: string): WorkspacePage | null {
    const row = this.db
      .prepare('SELECT * FROM workspace_pages WHERE slug = ? OR path = ? OR slug = ? LIMIT 1')
      .get(ref, ref, slugify(ref)) as PageRow | undefined;
    if (!row) return null;
    const links = (
      this.db
        .prepare('SELECT target_slug FROM workspace_page_links WHERE page_id = ? ORDER BY target_slug')
        .all(row.id) as Array<{
        target_slug: string;
      }>
    ).map((r) => r.target_slug);
    return {
      ...summary(row),
      frontmatter: JSON.parse(row.frontmatter) as Record<string, unknown>,
      body: row.body,
      links,
      updated_at: row.updated_at,
    };
  }

  /** Several pages, in the order asked; missing ones are left out. */
  getPages(refs: string[]): WorkspacePage[] {
    return refs.map((r) => this.getPage(r)).filter((p): p is WorkspacePage => p !== null);
  }

  /** Pages whose frontmatter `type` matches (case-insensitive). */
  getPagesByType(type: string, limit = 100): WorkspacePageSummary[] {
    return (
      this.db
        .prepare('SELECT * FROM workspace_pages WHERE lower(type) = lower(?) ORDER BY title LIMIT ?')
        .all(type, limit) as PageRow[]
    ).map(summary);
  }

  /** All tags with their page counts, or one page's tags. */
  getTags(ref?: string | null): Array<{ tag: string; count: number }> | string[] {
    if (ref) return this.getPage(ref)?.tags ?? [];
    return this.db
      .prepare('SELECT tag, COUNT(*) AS count FROM workspace_page_tags GROUP BY tag ORDER BY count DESC, tag')
      .all() as Array<{ tag: string; count: number }>;
  }

  /** Links out of a page (resolved or not) and the pages linking to it. */
  getReferences(ref: string): {
    outgoing: Array<{ slug: string; text: string; exists: boolean }>;
    incoming: WorkspacePageSummary[];
  } | null {
    const page = this.db
      .prepare('SELECT * FROM workspace_pages WHERE slug = ? OR path = ? OR slug = ? LIMIT 1')
      .get(ref, ref, slugify(ref)) as PageRow | undefined;
    if (!page) return null;
    const outgoing = (
      this.db
        .prepare(
          `SELECT l.target_slug AS slug, l.target_text AS text, EXISTS(SELECT 1 FROM workspace_pages p WHERE p.slug = l.target_slug) AS e
             FROM workspace_page_links l WHERE l.page_id = ? ORDER BY l.target_slug`,
        )
        .all(page.id) as Array<{ slug: string; text: string; e: number }>
    ).map((r) => ({ slug: r.slug, text: r.text, exists: r.e === 1 }));
    const incoming = (
      this.db
        .prepare(
          `SELECT p.* FROM workspace_page_links l JOIN workspace_pages p ON p.id = l.page_id
            WHERE l.target_slug = ? ORDER BY p.title`,
        )
        .all(page.slug) as PageRow[]
    ).map(summary);
    return { outgoing, incoming };
  }

  /** Revisions of a page, newest first. */
  getHistory(ref: string, limit = 20): WorkspaceRevision[] {
    const page = this.db
      .prepare('SELECT path FROM workspace_pages WHERE slug = ? OR path = ? OR slug = ? LIMIT 1')
      .get(ref, ref, slugify(ref)) as { path: string } | undefined;
    const path = page?.path ?? ref;
    return this.db
      .prepare(
        'SELECT revision, title, hash, size, created_at FROM workspace_page_revisions WHERE path = ? ORDER BY revision DESC LIMIT ?',
      )
      .all(path, limit) as WorkspaceRevision[];
  }
}

function summary(r: PageRow): WorkspacePageSummary {
  return { slug: r.slug, path: r.path, title: r.title, type: r.type, tags: JSON.parse(r.tags) as string[] };
}
