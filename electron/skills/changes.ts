import type { CatalogChangesRes, ScopeChanges, SkillDetail } from '../contract/skills.js';
import type { Scope, Skill, SkillStore } from '../store/index.js';
import type { CatalogEntry, SkillCatalog } from './catalog.js';

/** Where a cursor left one store: which file, and the last change-log entry seen. */
interface StorePosition {
  file: string;
  seq: number;
}
/** A listing handed out in pages: the scopes still to list whole, and the last id sent. */
interface PageState {
  pending: Scope[];
  after: string | null;
}
type Cursor = Partial<Record<Scope, StorePosition>> & { page?: PageState };

function parseCursor(text: string | undefined): Cursor | null {
  if (!text) return null;
  try {
    const v = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Cursor;
    return v && typeof v === 'object' ? v : null;
  } catch {
    return null;
  }
}

/** The change-log statements of a store, prepared once: a cache asks on every request. */
const statements = new WeakMap<SkillStore['db'], ReturnType<typeof prepare>>();
function prepare(db: SkillStore['db']) {
  return {
    head: db.prepare('SELECT coalesce(max(seq), 0) FROM skill_index_log').pluck(),
    oldest: db.prepare('SELECT min(seq) FROM skill_index_log').pluck(),
    since: db.prepare('SELECT skill_id FROM skill_index_log WHERE seq > ? ORDER BY seq').pluck(),
    // Pages by id, not offset, so a skill deleted meanwhile never shifts another one out of view.
    count: db.prepare('SELECT count(*) FROM skills WHERE id > ?').pluck(),
  };
}
function log(s: SkillStore) {
  let st = statements.get(s.db);
  if (!st) {
    st = prepare(s.db);
    statements.set(s.db, st);
  }
  return st;
}
const head = (s: SkillStore) => log(s).head.get() as number;

/**
 * The catalog's changes since `since` (see `skills/changes`). Each store's `skill_index_log` is
 * written by triggers, so every writer is seen; a cursor from another store file (the workspace
 * was switched) or older than the log's kept window resets that scope instead.
 */
export function catalogChanges(
  catalog: SkillCatalog,
  since: string | undefined,
  detail: (skill: Skill, entry: CatalogEntry) => SkillDetail,
  limit?: number,
): CatalogChangesRes {
  const prev = parseCursor(since);
  const open = catalog.stores();
  const scopes = open.map((s) => s.scope);
  if (prev?.page) {
    // A paged listing goes on from where it stopped, as long as every store is still the file it
    // started on (a workspace switch meanwhile starts it again).
    const { page, ...positions } = prev;
    if (
      open.every((s) => positions[s.scope]?.file === s.file) &&
      scopes.length === Object.keys(positions).length
    )
      return nextPage(catalog, positions, page, scopes, detail, limit);
    return catalogChanges(catalog, undefined, detail, limit);
  }
  const cursor: Cursor = {};
  for (const s of open) cursor[s.scope] = { file: s.file, seq: head(s) };
  const encoded = Buffer.from(JSON.stringify(cursor)).toString('base64url');
  const same = (scope: Scope) =>
    prev?.[scope]?.file === cursor[scope]?.file && prev?.[scope]?.seq === cursor[scope]?.seq;
  if (prev && same('account') && same('workspace')) {
    return { cursor: encoded, changed: false, scopes, changes: [] };
  }
  const toDetail = (store: SkillStore, skill: Skill) => detailIn(catalog, store, skill, detail);
  const changes: ScopeChanges[] = [];
  const resets: Scope[] = [];
  for (const store of open) {
    const was = prev?.[store.scope];
    const now = cursor[store.scope]!;
    if (was && was.file === now.file && was.seq === now.seq) continue;
    const oldest = log(store).oldest.get() as number | null;
    const resumable =
      was !== undefined && was.file === now.file && was.seq <= now.seq && (oldest ?? 0) <= was.seq + 1;
    if (!resumable) {
      if (limit !== undefined) {
        resets.push(store.scope);
        continue;
      }
      const upserted: SkillDetail[] = [];
      for (const s of store.repo.listSkills()) {
        const skill = store.repo.getSkill(s.id);
        if (skill) upserted.push(toDetail(store, skill));
      }
      changes.push({ scope: store.scope, reset: true, upserted, removed: [] });
      continue;
    }
    const ids = new Set(log(store).since.all(was.seq) as string[]);
    const upserted: SkillDetail[] = [];
    const removed: string[] = [];
    for (const id of ids) {
      const skill = store.repo.getSkill(id);
      if (skill) upserted.push(toDetail(store, skill));
      else removed.push(id);
    }
    changes.push({ scope: store.scope, reset: false, upserted, removed });
  }
  if (resets.length) {
    const paged = nextPage(catalog, cursor, { pending: resets, after: null }, scopes, detail, limit);
    return { ...paged, changes: [...changes, ...paged.changes] };
  }
  return { cursor: encoded, changed: true, scopes, changes };
}

/** Detail of `skill` in `store`, with its override flags against the other scope. */
function detailIn(
  catalog: SkillCatalog,
  store: SkillStore,
  skill: Skill,
  detail: (skill: Skill, entry: CatalogEntry) => SkillDetail,
): SkillDetail {
  const other = catalog.store(store.scope === 'account' ? 'workspace' : 'account');
  const twin = other?.repo.hasSkillNamed(skill.name) ?? false;
  const entry: CatalogEntry =
    store.scope === 'workspace'
      ? { ...skill, scope: 'workspace', ...(twin ? { overrides: 'account' as const } : {}) }
      : { ...skill, scope: 'account', ...(twin ? { overridden_by: 'workspace' as const } : {}) };
  return detail(skill, entry);
}

/**
 * Up to `limit` skills of the scopes being listed whole. The first page of a scope says `reset`;
 * the cursor stays at the store positions taken when the listing began, so whatever changes while
 * the pages are fetched comes with the next request after the last page.
 */
function nextPage(
  catalog: SkillCatalog,
  positions: Cursor,
  page: PageState,
  scopes: Scope[],
  detail: (skill: Skill, entry: CatalogEntry) => SkillDetail,
  limit = Number.POSITIVE_INFINITY,
): CatalogChangesRes {
  const changes: ScopeChanges[] = [];
  let budget = limit;
  let { pending, after } = page;
  while (pending.length && budget > 0) {
    const store = catalog.store(pending[0]!);
    if (!store) {
      pending = pending.slice(1);
      after = null;
      continue;
    }
    const skills = store.repo.getSkillsAfter(after ?? '', Math.min(budget, 1_000_000));
    const ids = skills.map((s) => s.id);
    const upserted = skills.map((skill) => detailIn(catalog, store, skill, detail));
    changes.push({ scope: store.scope, reset: after === null, upserted, removed: [] });
    budget -= ids.length;
    if (ids.length && log(store).count.get(ids[ids.length - 1]!) !== 0) {
      after = ids[ids.length - 1]!;
    } else {
      pending = pending.slice(1);
      after = null;
    }
  }
  const { page: _done, ...at } = positions;
  const more = pending.length > 0;
  let remaining = 0;
  if (more) {
    for (const [i, scope] of pending.entries()) {
      const store = catalog.store(scope);
      if (store) remaining += log(store).count.get(i === 0 ? (after ?? '') : '') as number;
    }
  }
  const cursor: Cursor = more ? { ...at, page: { pending, after } } : at;
  return {
    cursor: Buffer.from(JSON.stringify(cursor)).toString('base64url'),
    changed: true,
    scopes,
    changes,
    ...(more ? { more: true, remaining } : {}),
  };
}
