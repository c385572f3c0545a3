// Test support for the activation tests: skills added straight to a store, and a small catalog of
// unrelated jobs the recall stage must tell apart by meaning alone. Not used by the app.
import { existsSync } from 'node:fs';
import { describe } from 'vitest';
import { packageToRows, type SkillPackage, validatePackage } from '../skills/index.js';
import { openStore, type SkillStore } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { E5_ADDON_FILE, E5_MODEL_FILE } from './e5.js';

// The model is installed by `npm install` (scripts/setup-e5.mjs). CI checks it is there before
// the tests run, so there a missing model fails; on a machine where install could not fetch it the
// suites that need it say so and are skipped.
const e5Installed = existsSync(E5_MODEL_FILE) && existsSync(E5_ADDON_FILE);

/** `describe` for suites that need the e5 model: skipped where it is missing, an error in CI. */
export function describeWithE5(name: string, body: () => void): void {
  if (!e5Installed && process.env.CI)
    throw new Error(`e5 model or engine missing (${E5_MODEL_FILE}); run node scripts/setup-e5.mjs`);
  (e5Installed ? describe : describe.skip)(name, body);
}

/** The dot product of two vectors of the same length. */
export const dot = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/** Add a skill to `store` from package fields (a description artifact unless others are given). */
export function addSkill(store: SkillStore, raw: Record<string, unknown>): void {
  const r = validatePackage({ artifacts: [{ kind: 'description', name: 'd', content: 'x' }], ...raw });
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  const rows = packageToRows(r.value as SkillPackage);
  store.repo.createSkill(rows.skill);
  for (const a of rows.artifacts) store.repo.addArtifact(a);
}

/** Eight unrelated jobs in plain descriptions: name, description. */
export const PLAIN_CATALOG: ReadonlyArray<readonly [string, string]> = [
  [
    'slack-gif',
    'Create animated GIFs for Slack: emoji reactions and looping animations within the size limits',
  ],
  ['pdf', 'Merge, split, rotate and watermark PDF files, fill PDF forms, extract text and tables'],
  ['xlsx', 'Spreadsheet formulas, pivot tables and charts in Excel workbooks'],
  ['pptx', 'Build slide decks and presentations, speaker notes and layouts'],
  [
    'internal-comms',
    'Write internal communications: status reports, leadership updates, company newsletters',
  ],
  [
    'webapp-testing',
    'Test local web applications with Playwright: screenshots, console logs, clicking through forms',
  ],
  ['tax-calc', 'Compute sales tax and VAT on invoices for accounting'],
  ['poem', 'Write poems, sonnets and haiku on any theme'],
];

/** A new account store holding `order` (the plain catalog unless told otherwise). */
export function plainCatalogStore(
  order: ReadonlyArray<readonly [string, string]> = PLAIN_CATALOG,
): SkillStore {
  const store = openStore('account', tempDir())!;
  for (const [name, description] of order) addSkill(store, { name, description });
  return store;
}
