/**
 * Skill sources: subscribe a store to a git repository or an HTTP catalog, check it (fetch, then
 * list what is added, changed or removed upstream, with a diff, a scan report and the permissions
 * of each skill), and install only what the user accepts. A check writes nothing but the source's
 * snapshot; an update installs the snapshot the user saw, never a newer fetch.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { AppError } from '../contract/errors.js';
import type { TriggerRegressionView } from '../contract/skills.js';
import type { CheckResult, SkillCheck, SkillStatus, SourceView, UpdateResult } from '../contract/sources.js';
import type { Llm } from '../llm/index.js';
import {
  diffPackages,
  type ImportLimits,
  importPackages,
  packageHash,
  type SkillPackage,
  skillToPackage,
} from '../skills/index.js';
import { type SkillStore, skillNameKey } from '../store/index.js';
import { fetchCatalog } from './catalog.js';
import { discoverPackages } from './discover.js';
import { fetchGit, gitRefProblem, gitUrlProblem, SourceUnreachable } from './git.js';
import { diffPermissions, packagePermissions, scriptRuntime } from './permissions.js';
import {
  changedFiles,
  deleteSource,
  getSource,
  type InstalledRecord,
  insertSource,
  listRecords,
  listSources,
  type Snapshot,
  type SourceRow,
  skillDigests,
  updateSource,
  upsertRecord,
} from './records.js';
import { type ModelReview, reviewPackage, withReview } from './review.js';
import { needsRiskAcceptance, scanPackage } from './scan.js';

/** Where sources are read from and written to. */
export interface SourcesContext {
  /** The store the source installs into (account or workspace). */
  store: SkillStore;
  /** For an account source: the workspace store, whose same-named skills are never touched. */
  workspace: SkillStore | null;
  /** The account data folder: fetched sources are cached under `<home>/sources/`. */
  home: string;
  env: NodeJS.ProcessEnv;
  limits: ImportLimits;
  now?: () => Date;
  /**
   * The skills among `names` whose phase-1 trigger rates `apply` (a write to `store`) would
   * lower, measured without writing; an update holds those for review (absent: none checked).
   */
  triggerRegressions?: (
    names: readonly string[],
    apply: (store: SkillStore) => void,
    incoming?: readonly SkillPackage[],
  ) => TriggerRegressionView[];
}

export type { CheckResult, SkillCheck, SkillStatus, SourceView, UpdateResult };

const stamp = (ctx: SourcesContext) => (ctx.now?.() ?? new Date()).toISOString();

function cacheDir(ctx: SourcesContext, id: string): string {
  const storeKey = createHash('sha256').update(ctx.store.file).digest('hex').slice(0, 12);
  return join(ctx.home, 'sources', `${ctx.store.scope}-${storeKey}`, id);
}

function view(ctx: SourcesContext, row: SourceRow): SourceView {
  return {
    id: row.id,
    kind: row.kind,
    url: row.url,
    ref: row.ref,
    path: row.subdir,
    scope: ctx.store.scope,
    revision: row.revision,
    marketplace_id: row.marketplace_id,
    sync_etag: row.sync_etag,
    checked_at: row.checked_at,
    check_error: row.check_error,
    installed: listRecords(ctx.store.db, row.id).map((r) => r.name),
  };
}

/** The sources of the context's store. */
export function listSourceViews(ctx: SourcesContext): SourceView[] {
  return listSources(ctx.store.db).map((r) => view(ctx, r));
}

/** What `add` takes. */
export interface AddSourceInput {
  url: string;
  kind?: 'git' | 'catalog';
  ref?: string | null;
  /** A folder inside a git source to read skills from. */
  path?: string | null;
  /** The source's id (default: from the URL). */
  id?: string | null;
}

/** `https://host/a/skills.git` → `skills`. */
function idFromUrl(url: string): string {
  const last =
    url
      .replace(/[?#].*$/, '')
      .replace(/\/+$/, '')
      .split(/[/:]/)
      .pop() ?? '';
  const base = last
    .replace(/\.(git|json)$/i, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return base || 'source';
}

function kindOf(input: AddSourceInput): 'git' | 'catalog' {
  if (input.kind) return input.kind;
  return /^https?:\/\//i.test(input.url) && /\.json(?:$|[?#])/i.test(input.url) ? 'catalog' : 'git';
}

/**
 * Subscribe the store to a source and check it at once, so a wrong URL is reported now; a source
 * that cannot be fetched is not added. Nothing is installed.
 */
export async function addSource(ctx: SourcesContext, input: AddSourceInput): Promise<CheckResult> {
  const kind = kindOf(input);
  const problem =
    kind === 'git' ? (gitUrlProblem(input.url) ?? (input.ref ? gitRefProblem(input.ref) : null)) : null;
  if (problem) throw new AppError('INVALID_INPUT', `${input.url}: ${problem}`);
  if (input.path && (input.path.startsWith('/') || input.path.split(/[\\/]/).includes('..')))
    throw new AppError(
      'INVALID_INPUT',
      `--path ${input.path}: give a folder inside the source, without ".."`,
    );
  if (kind === 'catalog' && (input.ref || input.path))
    throw new AppError('USAGE', 'a catalog has no branch or folder: leave out --ref and --path');
  const id = input.id ?? idFromUrl(input.url);
  if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(id))
    throw new AppError(
      'INVALID_INPUT',
      `source name "${id}": use lowercase letters, digits, - and _ (at most 64)`,
    );
  if (getSource(ctx.store.db, id))
    throw new AppError(
      'CONFLICT',
      `a source named "${id}" is already in the ${ctx.store.scope} store; pass --name to choose another`,
    );
  const row: SourceRow = {
    id,
    kind,
    url: input.url,
    ref: input.ref ?? null,
    subdir: input.path ?? null,
    marketplace_id: null,
    sync_etag: null,
    revision: null,
    snapshot: null,
    checked_at: null,
    check_error: null,
    created_at: stamp(ctx),
  };
  const fetched = await fetchSnapshot(ctx, row);
  if (!fetched.ok)
    throw new AppError(
      'INVALID_INPUT',
      `${input.url} could not be fetched, so it was not added: ${fetched.error}`,
    );
  ctx.store.repo.transaction(() => insertSource(ctx.store.db, row));
  saveSnapshot(ctx, row, fetched.snapshot);
  return buildCheck(ctx, getSource(ctx.store.db, id)!, fetched.snapshot, false);
}

/** Forget a source. Its skills stay installed (they become ordinary skills); say so. */
export function removeSource(ctx: SourcesContext, id: string): { removed: string; kept_skills: string[] } {
  const row = requireSource(ctx, id);
  const kept = listRecords(ctx.store.db, row.id).map((r) => r.name);
  ctx.store.repo.transaction(() => deleteSource(ctx.store.db, row.id));
  return { removed: row.id, kept_skills: kept };
}

function requireSource(ctx: SourcesContext, id: string): SourceRow {
  const row = getSource(ctx.store.db, id);
  if (!row) {
    const known = listSources(ctx.store.db).map((r) => r.id);
    throw new AppError(
      'NOT_FOUND',
      `no source named "${id}" in the ${ctx.store.scope} store${known.length ? ` (sources: ${known.join(', ')})` : '; add one with `skilldesk sources add URL`'}`,
    );
  }
  return row;
}

type Fetched = { ok: true; snapshot: Snapshot; notModified: boolean } | { ok: false; error: string };

async function fetchSnapshot(ctx: SourcesContext, row: SourceRow): Promise<Fetched> {
  const dir = cacheDir(ctx, row.id);
  try {
    if (row.kind === 'git') {
      const co = await fetchGit(row.url, row.ref, dir, ctx.env);
      const found = await discoverPackages(row.subdir ? join(co.dir, row.subdir) : co.dir, ctx.limits);
      return {
        ok: true,
        notModified: false,
        snapshot: { revision: co.revision, etag: null, marketplace_id: null, ...found },
      };
    }
    const previous = row.snapshot ? (JSON.parse(row.snapshot) as Snapshot) : null;
    const got = await fetchCatalog(row.url, previous ? row.sync_etag : null, dir, ctx.limits.maxBytes);
    if (got.status === 'not-modified' && previous) return { ok: true, notModified: true, snapshot: previous };
    if (got.status === 'not-modified')
      throw new SourceUnreachable('the catalog answered 304 to a first fetch');
    const found = await discoverPackages(got.dir, ctx.limits);
    return {
      ok: true,
      notModified: false,
      snapshot: { revision: got.revision, etag: got.etag, marketplace_id: got.marketplace_id, ...found },
    };
  } catch (e) {
    if (e instanceof SourceUnreachable) return { ok: false, error: e.message };
    throw e;
  }
}

function saveSnapshot(ctx: SourcesContext, row: SourceRow, snap: Snapshot): void {
  ctx.store.repo.transaction(() =>
    updateSource(ctx.store.db, row.id, {
      snapshot: JSON.stringify(snap),
      sync_etag: snap.etag ?? row.sync_etag,
      marketplace_id: snap.marketplace_id ?? row.marketplace_id,
      checked_at: stamp(ctx),
      check_error: null,
    }),
  );
}

/** Fields set at install (where it came from), left out of diffs and hashes. */
function comparable(pkg: SkillPackage): SkillPackage {
  const { id: _id, marketplace_id: _m, sync_etag: _e, source: _s, ...rest } = pkg;
  return rest as SkillPackage;
}

function buildCheck(ctx: SourcesContext, row: SourceRow, snap: Snapshot, notModified: boolean): CheckResult {
  const records = new Map(listRecords(ctx.store.db, row.id).map((r) => [skillNameKey(r.name), r]));
  const skills: SkillCheck[] = [];
  const seen = new Set<string>();
  for (const { file, pkg } of snap.packages) {
    const key = skillNameKey(pkg.name);
    seen.add(key);
    const reviewed = snap.reviews?.[key];
    const review = reviewed && reviewed.hash === packageHash(comparable(pkg)) ? reviewed : null;
    skills.push(checkOne(ctx, records.get(key) ?? null, pkg, file, review));
  }
  for (const [key, rec] of records) {
    if (seen.has(key)) continue;
    const stored = ctx.store.repo.getSkillByName(rec.name);
    const tamperedFiles = stored ? changedFiles(rec.files, skillDigests(stored).files) : [];
    skills.push({
      name: rec.name,
      status: 'removed',
      description: stored?.description ?? null,
      script_runtime: null,
      file: null,
      installed_version: stored?.version ?? null,
      upstream_version: null,
      tampered: tamperedFiles.length > 0,
      tampered_files: tamperedFiles,
      overridden_by_workspace: isOverridden(ctx, rec.name),
      diff: null,
      scan: null,
      permissions: null,
      permission_changes: [],
      review: null,
      needs_risk_acceptance: false,
      note: stored
        ? 'removed upstream; the installed skill is kept (delete it with `skilldesk skills delete` if you no longer want it)'
        : 'removed upstream, and no longer in the store',
    });
  }
  skills.sort((a, b) => a.name.localeCompare(b.name));
  return {
    source: view(ctx, row),
    reachable: true,
    error: null,
    not_modified: notModified,
    revision: snap.revision,
    installed_revision: row.revision,
    skills,
    invalid: snap.invalid,
    updates_available: skills.filter(
      (s) => s.status === 'added' || s.status === 'changed' || (s.tampered && s.status !== 'removed'),
    ).length,
  };
}

function isOverridden(ctx: SourcesContext, name: string): boolean {
  return ctx.store.scope === 'account' && (ctx.workspace?.repo.hasSkillNamed(name) ?? false);
}

function checkOne(
  ctx: SourcesContext,
  rec: InstalledRecord | null,
  pkg: SkillPackage,
  file: string,
  review: (ModelReview & { hash: string }) | null,
): SkillCheck {
  const stored = ctx.store.repo.getSkillByName(pkg.name);
  const scanned = scanPackage(pkg);
  const scan = review ? withReview(scanned, review) : scanned;
  const permissions = packagePermissions(pkg);
  const upstream = comparable(pkg);
  const tamperedFiles = rec && stored ? changedFiles(rec.files, skillDigests(stored).files) : [];
  let status: SkillStatus;
  let note: string | null = null;
  if (!rec && stored) {
    status = 'conflict';
    note = `a skill named "${stored.name}" is already in the ${ctx.store.scope} store and did not come from this source; it is left alone (rename or delete it to install this one)`;
  } else if (!rec) status = 'added';
  else if (!stored) {
    status = 'added';
    note = 'was installed from this source and then deleted from the store';
  } else status = rec.upstream_hash === packageHash(upstream) ? 'unchanged' : 'changed';
  const from = stored && status !== 'conflict' ? comparable(skillToPackage(stored)) : null;
  const empty = { ...upstream, artifacts: [] } as unknown as SkillPackage;
  const diff =
    status === 'unchanged' && tamperedFiles.length === 0
      ? null
      : diffPackages(from ?? (status === 'conflict' ? comparable(skillToPackage(stored!)) : empty), upstream);
  if (tamperedFiles.length > 0 && !note)
    note = `changed in the store outside an accepted update (${tamperedFiles.join(', ')}); it asks again before it runs, and an update restores the accepted upstream content`;
  return {
    name: pkg.name,
    status,
    description: pkg.description ?? null,
    script_runtime: scriptRuntime(permissions),
    file,
    installed_version: stored?.version ?? null,
    upstream_version: pkg.version,
    tampered: tamperedFiles.length > 0,
    tampered_files: tamperedFiles,
    overridden_by_workspace: isOverridden(ctx, pkg.name),
    diff,
    scan,
    permissions,
    permission_changes: diffPermissions(rec?.permissions ?? null, permissions),
    review: review
      ? { model: review.model, verdict: review.verdict, reasons: review.reasons, error: review.error }
      : null,
    needs_risk_acceptance: needsRiskAcceptance(scan),
    note,
  };
}

/**
 * Fetch a source and report what changed against what is installed. An unreachable source keeps
 * everything installed and is reported with `reachable: false` (the error is saved on the source).
 */
export async function checkSource(
  ctx: SourcesContext,
  id: string,
  opts: { review?: Llm | null } = {},
): Promise<CheckResult> {
  const row = requireSource(ctx, id);
  const fetched = await fetchSnapshot(ctx, row);
  if (!fetched.ok) {
    ctx.store.repo.transaction(() =>
      updateSource(ctx.store.db, row.id, { checked_at: stamp(ctx), check_error: fetched.error }),
    );
    const after = getSource(ctx.store.db, row.id)!;
    return {
      source: view(ctx, after),
      reachable: false,
      error: fetched.error,
      not_modified: false,
      revision: null,
      installed_revision: row.revision,
      skills: [],
      invalid: [],
      updates_available: 0,
    };
  }
  const snap = fetched.snapshot;
  if (opts.review) {
    // Only what would be installed is reviewed: one model call per added or changed skill.
    const pending = buildCheck(ctx, row, snap, fetched.notModified).skills.filter(
      (s) => s.status === 'added' || s.status === 'changed',
    );
    const reviews = { ...(snap.reviews ?? {}) };
    for (const s of pending) {
      const p = snap.packages.find((x) => skillNameKey(x.pkg.name) === skillNameKey(s.name));
      if (!p) continue;
      const review = await reviewPackage(opts.review, p.pkg);
      reviews[skillNameKey(s.name)] = { ...review, hash: packageHash(comparable(p.pkg)) };
    }
    snap.reviews = reviews;
  }
  saveSnapshot(ctx, row, snap);
  return buildCheck(ctx, getSource(ctx.store.db, row.id)!, snap, fetched.notModified);
}

/** What `update` accepts. */
export interface UpdateInput {
  /** Only these skills (names as listed by check). */
  skills?: string[];
  /** Every added or changed skill (and stored ones that no longer match what was accepted). */
  all?: boolean;
  /** Install skills with high scan findings. */
  accept_risk?: boolean;
  /** Install skills whose update lowers their trigger recall or precision. */
  accept_regression?: boolean;
}

/**
 * Install what the last check showed (checking first when there is no snapshot): the named skills
 * or, with `all`, every added or changed one. All or nothing: a skill with high findings and no
 * `accept_risk` stops the whole update before anything is written.
 */
export async function acceptUpdates(
  ctx: SourcesContext,
  id: string,
  input: UpdateInput,
): Promise<UpdateResult> {
  let row = requireSource(ctx, id);
  if (!input.all && !(input.skills && input.skills.length > 0))
    throw new AppError('USAGE', 'name the skills to accept with --skill NAME (repeatable), or pass --all');
  if (!row.snapshot) {
    const checked = await checkSource(ctx, id);
    if (!checked.reachable) throw new SourceUnreachable(checked.error ?? 'unreachable');
    row = requireSource(ctx, id);
  }
  const snap = JSON.parse(row.snapshot!) as Snapshot;
  const check = buildCheck(ctx, row, snap, false);
  const byKey = new Map(check.skills.map((s) => [skillNameKey(s.name), s]));
  const skipped: UpdateResult['skipped'] = [];
  let chosen: SkillCheck[];
  if (input.skills && input.skills.length > 0) {
    chosen = [];
    for (const name of input.skills) {
      const s = byKey.get(skillNameKey(name));
      if (!s)
        throw new AppError(
          'NOT_FOUND',
          `"${name}" is not in source ${row.id} (skills: ${check.skills.map((x) => x.name).join(', ') || 'none'}); run \`skilldesk sources check ${row.id}\``,
        );
      if (s.status === 'conflict') throw new AppError('CONFLICT', `${s.name}: ${s.note}`);
      if (s.status === 'removed') {
        skipped.push({ name: s.name, reason: 'removed upstream; kept as installed' });
        continue;
      }
      chosen.push(s);
    }
  } else {
    chosen = check.skills.filter(
      (s) => s.status === 'added' || s.status === 'changed' || (s.tampered && s.status === 'unchanged'),
    );
    for (const s of check.skills)
      if (s.status === 'conflict') skipped.push({ name: s.name, reason: s.note ?? 'conflict' });
  }
  const risky = chosen.filter((s) => s.needs_risk_acceptance);
  const removed = check.skills.filter((s) => s.status === 'removed').map((s) => s.name);
  if (risky.length > 0 && !input.accept_risk) {
    return {
      source: row.id,
      revision: snap.revision,
      installed: [],
      skipped,
      needs_risk_acceptance: risky.map((s) => ({
        name: s.name,
        findings: (s.scan?.findings ?? []).filter((f) => f.severity === 'high'),
      })),
      held_for_review: [],
      removed_upstream: removed,
    };
  }
  const pkgs = new Map(snap.packages.map((p) => [skillNameKey(p.pkg.name), p]));
  let loaded = chosen.map((s) => {
    const p = pkgs.get(skillNameKey(s.name))!;
    const { id: _id, ...rest } = p.pkg;
    const pkg = {
      ...rest,
      source: 'community',
      marketplace_id: (snap.marketplace_id ?? row.id).slice(0, 200),
      sync_etag: snap.revision.slice(0, 200),
    } as SkillPackage;
    return { file: `${row.id}:${p.file}`, pkg, upstream: p.pkg, check: s };
  });
  // A skill whose update lowers its trigger recall or precision is held for review, with the
  // figures; the rest install. Accepting it is a second, explicit update.
  const regressions =
    input.accept_regression || !ctx.triggerRegressions
      ? []
      : ctx.triggerRegressions(
          loaded.map((l) => l.pkg.name),
          (copy) => importPackages(copy, loaded, { force: true }),
          loaded.map((l) => l.pkg),
        );
  const heldKeys = new Set(regressions.map((r) => skillNameKey(r.name)));
  if (heldKeys.size > 0) loaded = loaded.filter((l) => !heldKeys.has(skillNameKey(l.pkg.name)));
  const installed = ctx.store.repo.transaction(() => {
    const outcomes = importPackages(ctx.store, loaded, { force: true });
    return outcomes.map((o, i) => {
      const l = loaded[i]!;
      const stored = ctx.store.repo.getSkillByName(o.name)!;
      const digests = skillDigests(stored);
      upsertRecord(ctx.store.db, {
        source_id: row.id,
        name: stored.name,
        revision: snap.revision,
        upstream_hash: packageHash(comparable(l.upstream)),
        files: digests.files,
        content_hash: digests.content_hash,
        permissions: l.check.permissions!,
        scan: l.check.scan!,
        accepted_risk: l.check.needs_risk_acceptance,
        installed_at: stamp(ctx),
      });
      return { name: stored.name, action: o.action, version: o.version, permissions: l.check.permissions! };
    });
  });
  ctx.store.repo.transaction(() =>
    updateSource(ctx.store.db, row.id, { revision: snap.revision, sync_etag: snap.etag ?? row.sync_etag }),
  );
  return {
    source: row.id,
    revision: snap.revision,
    installed,
    skipped,
    needs_risk_acceptance: [],
    held_for_review: regressions,
    removed_upstream: removed,
  };
}

/** A skill installed from a source whose stored content no longer matches what was accepted. */
export interface PinProblem {
  name: string;
  source: string;
  revision: string;
  changed_files: string[];
}

/** Check every installed skill of a store against its accepted digests. */
export function verifyPins(store: SkillStore): PinProblem[] {
  const out: PinProblem[] = [];
  for (const rec of listRecords(store.db)) {
    const stored = store.repo.getSkillByName(rec.name);
    if (!stored) continue;
    const changed = changedFiles(rec.files, skillDigests(stored).files);
    if (changed.length > 0)
      out.push({ name: rec.name, source: rec.source_id, revision: rec.revision, changed_files: changed });
  }
  return out;
}

/** The last check of a source, rebuilt from its saved snapshot (no fetch), or null before any. */
export function lastCheck(ctx: SourcesContext, id: string): CheckResult | null {
  const row = getSource(ctx.store.db, id);
  if (!row?.snapshot) return null;
  const check = buildCheck(ctx, row, JSON.parse(row.snapshot) as Snapshot, false);
  return row.check_error ? { ...check, reachable: false, error: row.check_error } : check;
}
