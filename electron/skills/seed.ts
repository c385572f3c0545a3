import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '../contract/errors.js';
import type { SkillStore } from '../store/index.js';
import { packageToRows } from './convert.js';
import { type SkillPackage, validatePackage } from './package-schema.js';
import { compareVersions } from './version.js';
import { recordVersion } from './versions.js';

/** The shipped `seed-skills/` folder. */
export const SEED_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../seed-skills');

let cached: SkillPackage[] | undefined;

/** The shipped system skills, validated (a broken seed is a build bug: it throws). */
export function loadSeedPackages(dir = SEED_DIR): SkillPackage[] {
  if (dir === SEED_DIR && cached) return cached;
  const pkgs = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const r = validatePackage(JSON.parse(readFileSync(join(dir, f), 'utf8')));
      if (!r.ok)
        throw new AppError(
          'INTERNAL',
          `seed-skills/${f}: ${r.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
        );
      return { ...r.value, source: 'system' as const };
    });
  if (dir === SEED_DIR) cached = pkgs;
  return pkgs;
}

/**
 * The shipped seeds' names and versions, read without validating the packages; null for a file
 * whose name or version is not a plain string (the full load then validates, and names the fault).
 */
function seedHeads(dir = SEED_DIR): Array<{ name: string; version: string } | null> {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => {
      try {
        const v = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { name?: unknown; version?: unknown };
        return typeof v?.name === 'string' && typeof v.version === 'string'
          ? { name: v.name, version: v.version }
          : null;
      } catch {
        return null;
      }
    });
}

/**
 * Upsert system skills into the account store when their version is newer than the one last
 * seeded. User and community skills of the same name are never touched, and a system skill the
 * user deleted stays deleted until a newer version ships. This is the only writer of
 * `source: "system"`: user imports (`importPackages`) refuse packages that claim it.
 */
export function seedAccountStore(store: SkillStore, given?: SkillPackage[]): { seeded: string[] } {
  const seeded: string[] = [];
  const last = store.db.prepare('SELECT version FROM seeded_skills WHERE name = ?');
  const remember = store.db.prepare(
    'INSERT INTO seeded_skills (name, version) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET version = excluded.version',
  );
  const isPending = (name: string, version: string) => {
    const row = last.get(name) as { version: string } | undefined;
    return !row || compareVersions(version, row.version) > 0;
  };
  // Almost every start has nothing to seed, and every CLI command is a start: the shipped files'
  // names and versions say so without validating each package (which costs tens of ms).
  if (!given && seedHeads().every((h) => h !== null && !isPending(h.name, h.version))) return { seeded };
  const pkgs = given ?? loadSeedPackages();
  const pending = pkgs.filter((p) => isPending(p.name, p.version));
  if (pending.length === 0) return { seeded };
  store.repo.transaction(() => {
    for (const pkg of pending) {
      remember.run(pkg.name, pkg.version);
      const existing = store.repo.getSummaryByName(pkg.name);
      if (existing && existing.source !== 'system') continue;
      if (existing && compareVersions(pkg.version, existing.version) <= 0) continue;
      const rows = packageToRows(pkg, existing?.id);
      if (existing) {
        const replaced = store.repo.getSkill(existing.id);
        if (replaced) recordVersion(store.db, replaced, 'seed');
        store.repo.updateSkill(rows.skill);
        store.repo.replaceArtifacts(existing.id, rows.artifacts);
      } else {
        store.repo.createSkill(rows.skill);
        for (const a of rows.artifacts) store.repo.addArtifact(a);
      }
      seeded.push(pkg.name);
    }
  });
  return { seeded };
}
