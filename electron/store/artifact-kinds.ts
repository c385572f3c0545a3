import { ARTIFACT_KINDS } from '../contract/kinds.js';
import type { Db } from './db.js';
import { writeTransaction } from './write-transaction.js';

/**
 * Make sure every kind this build knows is a row of `artifact_kinds` (the table `skill_artifacts.kind`
 * references): a kind added to the app needs no migration of its own. Reads only, unless a kind is
 * missing. A store an older build opens keeps the rows a newer one added (harmless: the older build
 * never writes that kind).
 */
export function registerArtifactKinds(db: Db, kinds: readonly string[] = ARTIFACT_KINDS): void {
  const known = new Set(db.prepare('SELECT name FROM artifact_kinds').pluck().all() as string[]);
  const missing = kinds.filter((k) => !known.has(k));
  if (missing.length === 0) return;
  const insert = db.prepare('INSERT OR IGNORE INTO artifact_kinds (name) VALUES (?)');
  writeTransaction(db, () => {
    for (const k of missing) insert.run(k);
  });
}
