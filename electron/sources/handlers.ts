/**
 * The `sources/*` handler slice (Settings → Sources), and the app's background checks: on launch
 * and every few hours each source is fetched and compared, which writes only its snapshot; the
 * view shows the result and nothing is installed until the user accepts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HandlersFor } from '../contract/channels.js';
import { AppError } from '../contract/errors.js';
import type { SkillScope } from '../contract/skills.js';
import type { CatalogRef, ImportLimits, TriggerRegressionCheck } from '../skills/index.js';
import { writeFileAtomic } from '../store/index.js';
import {
  acceptUpdates,
  addSource,
  checkSource,
  lastCheck,
  listSourceViews,
  removeSource,
  type SourcesContext,
} from './sources.js';

/** What the slice needs from the host. */
export interface SourcesHandlerDeps {
  catalog: CatalogRef;
  home: string;
  env: NodeJS.ProcessEnv;
  limits: ImportLimits;
  /** Tell the catalog's readers that skills were installed. */
  onInstalled?: (names: string[]) => void;
  /** See `SourcesContext.triggerRegressions`; given the catalog the update is measured against. */
  triggerRegressions?: TriggerRegressionCheck;
}

const settingsFile = (home: string) => join(home, 'sources-settings.json');

/** Whether background checks are on (default on). */
export function backgroundChecksEnabled(home: string): boolean {
  try {
    if (!existsSync(settingsFile(home))) return true;
    const v = JSON.parse(readFileSync(settingsFile(home), 'utf8')) as { background_checks?: unknown };
    return v.background_checks !== false;
  } catch {
    return true;
  }
}

function contexts(deps: SourcesHandlerDeps): SourcesContext[] {
  const c = deps.catalog.get();
  return c.stores().map((store) => ({
    store,
    workspace: store.scope === 'account' ? c.workspace : null,
    home: deps.home,
    env: deps.env,
    limits: deps.limits,
  }));
}

function contextOf(deps: SourcesHandlerDeps, scope: SkillScope): SourcesContext {
  const c = deps.catalog.get();
  const store = c.store(scope);
  if (!store) throw new AppError('NOT_FOUND', 'no workspace store is open, so it has no sources');
  return {
    store,
    workspace: scope === 'account' ? c.workspace : null,
    home: deps.home,
    env: deps.env,
    limits: deps.limits,
    ...(deps.triggerRegressions
      ? {
          triggerRegressions: (names, apply, incoming) =>
            deps.triggerRegressions!(c, scope, names, apply, incoming),
        }
      : {}),
  };
}

/** The handlers of `sources/*`. */
export function createSourcesHandlers(deps: SourcesHandlerDeps) {
  return {
    'sources/list': () => ({
      sources: contexts(deps).flatMap((ctx) =>
        listSourceViews(ctx).map((source) => ({ source, last_check: lastCheck(ctx, source.id) })),
      ),
      background_checks: backgroundChecksEnabled(deps.home),
    }),
    'sources/add': (req) => {
      if (req.scope === 'workspace' && !deps.catalog.hasWorkspace())
        throw new AppError('INVALID_INPUT', 'open a workspace folder first to add a source to it');
      // The first source of a workspace creates its store.
      if (req.scope === 'workspace') deps.catalog.withStore('workspace');
      return addSource(contextOf(deps, req.scope), {
        url: req.url,
        kind: req.kind,
        ref: req.ref ?? null,
        path: req.path ?? null,
        id: req.id ?? null,
      });
    },
    'sources/remove': (req) => removeSource(contextOf(deps, req.scope), req.id),
    'sources/check': (req) => checkSource(contextOf(deps, req.scope), req.id),
    'sources/update': async (req) => {
      const r = await acceptUpdates(contextOf(deps, req.scope), req.id, {
        skills: req.skills,
        all: req.all,
        accept_risk: req.accept_risk,
        accept_regression: req.accept_regression,
      });
      if (r.installed.length > 0) deps.onInstalled?.(r.installed.map((i) => i.name));
      return r;
    },
    'sources/set-background-checks': (req) => {
      writeFileAtomic(settingsFile(deps.home), `${JSON.stringify({ background_checks: req.enabled })}\n`);
      return { background_checks: req.enabled };
    },
  } satisfies HandlersFor<'sources'>;
}

/**
 * Check every source now (after `firstAfterMs`) and then every `everyMs`, while background checks
 * are on. A failed check is saved on its source and logged; it never stops the app.
 */
export function startBackgroundChecks(
  deps: SourcesHandlerDeps & {
    log: (m: string) => void;
    /** After a round that checked at least one source: the window tells the user what it found. */
    onChecked?: (checked: number) => void;
  },
  firstAfterMs = 15_000,
  everyMs = 6 * 60 * 60 * 1000,
): () => void {
  let running = false;
  const run = async () => {
    if (running || !backgroundChecksEnabled(deps.home)) return;
    running = true;
    let checked = 0;
    try {
      for (const ctx of contexts(deps)) {
        for (const s of listSourceViews(ctx)) {
          const r = await checkSource(ctx, s.id).catch((e: unknown) => {
            deps.log(`checking source ${s.id} failed: ${e instanceof Error ? e.message : String(e)}`);
            return null;
          });
          if (r) checked += 1;
          if (r && !r.reachable) deps.log(`source ${s.id} could not be reached: ${r.error}`);
        }
      }
      if (checked > 0) deps.onChecked?.(checked);
    } catch (e) {
      deps.log(`background source checks stopped: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      running = false;
    }
  };
  const first = setTimeout(() => void run(), firstAfterMs);
  const every = setInterval(() => void run(), everyMs);
  first.unref?.();
  every.unref?.();
  return () => {
    clearTimeout(first);
    clearInterval(every);
  };
}
