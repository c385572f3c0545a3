import { existsSync, mkdirSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { AppError } from '../contract/errors.js';
import { SCOPES, type SkillScope } from '../contract/skills.js';
import { registerArtifactKinds } from './artifact-kinds.js';
import { type Db, openDatabase } from './db.js';
import { storeFile } from './paths.js';
import { SkillRepository } from './skill-repository.js';

/** The two places skills live (defined in the contract). */
export type Scope = SkillScope;
export { SCOPES };

/** One opened `agents.db` with its repository. */
export interface SkillStore {
  scope: Scope;
  dir: string;
  file: string;
  db: Db;
  repo: SkillRepository;
  close(): void;
}

/** Options for {@link openStore}. */
export interface OpenStoreOptions {
  /** Create the folder and the file if missing (default true). */
  create?: boolean;
  /** How long a writer waits for another SkillDesk writing this store (see `writeTransaction`). */
  waitMs?: number;
}

/**
 * Open the store of a folder. With `create: false` a missing file yields `null` (nothing is
 * written), which read-only commands use so that looking never creates files.
 */
export function openStore(scope: Scope, dir: string, opts: OpenStoreOptions = {}): SkillStore | null {
  const create = opts.create ?? true;
  const file = storeFile(dir);
  if (existsSync(dir) && !statSync(dir).isDirectory()) {
    throw new AppError('INVALID_INPUT', `${dir} is not a folder`, { dir });
  }
  if (!existsSync(file)) {
    if (!create) return null;
    mkdirSync(dir, { recursive: true });
  }
  const db = openDatabase(file, { waitMs: opts.waitMs });
  try {
    registerArtifactKinds(db);
  } catch (e) {
    db.close();
    throw e;
  }
  const repo = new SkillRepository(db);
  return { scope, dir, file, db, repo, close: () => db.close() };
}

/**
 * An in-memory copy of a store (its whole database, as it is now), for trying a write whose
 * effect must be measured before it is made for real. Nothing done to the copy reaches the file.
 */
export function cloneStoreInMemory(store: SkillStore): SkillStore {
  const image = store.db.serialize();
  // The file is in WAL mode (header bytes 18 and 19 are 2), which a database held in memory
  // cannot open: mark the copy as a rollback-journal database.
  image[18] = 1;
  image[19] = 1;
  const db = new Database(image);
  registerArtifactKinds(db);
  const repo = new SkillRepository(db);
  return { scope: store.scope, dir: store.dir, file: ':memory:', db, repo, close: () => db.close() };
}
