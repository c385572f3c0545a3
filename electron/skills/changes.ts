import type { CatalogChangesRes, ScopeChanges, SkillDetail } from '../contract/skills.js';
import type { Scope, Skill, SkillStore } from '../store/index.js';
import type { CatalogEntry, SkillCatalog } from './catalog.js';

/** Where a cursor left one store: which file, and the last change-log entry seen. */
interface StorePosition {
  file: string;
  seq: number;
}
type Cursor = Partial<Record<Scope, StorePosition>>;

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
): CatalogChangesRes {
  const prev = parseCursor(since);
  const open = catalog.stores();
  const cursor: Cursor = {};
  for (const s of open) cursor[s.scope] = { file: s.file, seq: head(s) };
  const scopes = open.map((s) => s.scope);
  const encoded = Buffer.from(JSON.stringify(cursor)).toString('base64url');
  const same = (scope: Scope) =>
    prev?.[scope]?.file === cursor[scope]?.file && prev?.[scope]?.seq === cursor[scope]?.seq;
  if (prev && same('account') && same('workspace')) {
    return { cursor: encoded, changed: false, scopes, changes: [] };
  }
  const other = (scope: Scope) => catalog.store(scope === 'account' ? 'workspace' : 'account');
  const toDetail = (store: SkillStore, skill: Skill) => {
    const twin = other(store.scope)?.repo.hasSkillNamed(skill.name) ?? false;
    const entry: CatalogEntry =
      store.scope === 'workspace'
        ? { ...skill, scope: 'workspace', ...(twin ? { overrides: 'account' as const } : {}) }
        : { ...skill, scope: 'account', ...(twin ? { overridden_by: 'workspace' as const } : {}) };
    return detail(skill, entry);
  };
  const changes: ScopeChanges[] = [];
  for (const store of open) {
    const was = prev?.[store.scope];
    const now = cursor[store.scope]!;
    if (was && was.file === now.file && was.seq === now.seq) continue;
    const oldest = log(store).oldest.get() as number | null;
    const resumable =
      was !== undefined && was.file === now.file && was.seq <= now.seq && (oldest ?? 0) <= was.seq + 1;
    if (!resumable) {
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
  return { cursor: encoded, changed: true, scopes, changes };
}
