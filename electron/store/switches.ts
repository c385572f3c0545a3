/**
 * Per-skill switches (migration 0018): on, name-only or off, per store. Read on every match, so
 * each database's switches are cached and re-read only when a write of this connection or
 * another process's commit (`PRAGMA data_version`) may have changed them.
 */
import type { Db } from './db.js';
import { skillNameKey } from './skill-name.js';

/** How a skill takes part: `on` (matched and listed), `name-only` (listed, started by name), `off`. */
export type SkillSwitch = 'on' | 'name-only' | 'off';

/** Every switch state, for schemas and CLI choices. */
export const SKILL_SWITCHES = ['on', 'name-only', 'off'] as const satisfies readonly SkillSwitch[];

interface Cached {
  version: number;
  map: ReadonlyMap<string, Exclude<SkillSwitch, 'on'>>;
}
const cache = new WeakMap<Db, Cached>();
// `db.pragma()` prepares its statement anew on every call (most of a match's cost of reading the
// switches); one prepared statement per connection reads the same value in microseconds.
const versionStatements = new WeakMap<Db, { get(): unknown }>();

function dataVersion(db: Db): number {
  let st = versionStatements.get(db);
  if (!st) {
    st = db.prepare('PRAGMA data_version').pluck();
    versionStatements.set(db, st);
  }
  return st.get() as number;
}

/** The store's switches that are not `on`, by {@link skillNameKey}. */
export function readSwitches(db: Db): ReadonlyMap<string, Exclude<SkillSwitch, 'on'>> {
  const version = dataVersion(db);
  const hit = cache.get(db);
  if (hit && hit.version === version) return hit.map;
  const rows = db.prepare('SELECT name_key, state FROM skill_switches').all() as Array<{
    name_key: string;
    state: Exclude<SkillSwitch, 'on'>;
  }>;
  const map = new Map(rows.map((r) => [r.name_key, r.state]));
  cache.set(db, { version, map });
  return map;
}

/** The store's own switch for a name (`on` when it has none). */
export function switchIn(db: Db, name: string): SkillSwitch {
  return readSwitches(db).get(skillNameKey(name)) ?? 'on';
}

/** Set a store's switch for a name; `on` removes it. */
export function setSwitch(db: Db, name: string, state: SkillSwitch): void {
  if (state === 'on') db.prepare('DELETE FROM skill_switches WHERE name_key = ?').run(skillNameKey(name));
  else
    db.prepare(
      `INSERT INTO skill_switches (name_key, name, state, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(name_key) DO UPDATE SET name = excluded.name, state = excluded.state, updated_at = excluded.updated_at`,
    ).run(skillNameKey(name), name, state, new Date().toISOString());
  // This connection's own commits leave data_version as it was.
  cache.delete(db);
}
