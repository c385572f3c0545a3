import type { EventHub, HandlersFor } from '../contract/channels.js';
import type { CatalogRef } from '../skills/index.js';
import { denseQuery, e5MatchStatus, embedCatalog, semanticStatus } from './full-match.js';
import { explainMatch, matchSkills, syncSkillIndexes, warmSkillIndexes } from './phase1.js';

/** What the activation slice needs. */
export interface ActivationHandlerDeps {
  catalog: CatalogRef;
  /** Monotonic milliseconds, for `took_ms`. */
  now: () => number;
  /**
   * Start embedding skills that have no e5 vector yet in the background when a match finds them
   * (the app, a long-lived process). A one-shot process (the CLI) leaves them to `skills/embed`
   * (run at import): it would exit with the work undone or stay alive after its answer. A match
   * never waits for embedding either way: it answers from what exists and says what is pending.
   */
  embedInBackground?: boolean;
  /**
   * Also embed right after the catalog changes (an import, a save) rather than at the next
   * match: the app, whose process outlives the import.
   */
  embedOnChange?: boolean;
  /** Where `skills/embed-progressed` goes, and where catalog changes are heard. */
  events?: Pick<EventHub, 'emit' | 'subscribe'>;
  /**
   * Run a few warm-up matches with the index's first build, so a long-lived process's first
   * timed match is not run through the interpreter (default true). A one-shot process (the CLI)
   * answers a single match: the warm-ups would only add to its wall time.
   */
  primeMatcher?: boolean;
  /** Told of each match's skills (the sandbox warm-up's hook); never delays the reply. */
  onMatched?: (matches: ReadonlyArray<{ name: string; scope: 'account' | 'workspace' }>) => void;
}

/** `skills/match`: the full phase 1 over the merged catalog, with its explanation on request. */
export function createActivationHandlers(deps: ActivationHandlerDeps) {
  const { catalog } = deps;
  if (deps.embedOnChange)
    deps.events?.subscribe('skills/catalog-changed', (e) => {
      if (e.reason !== 'deleted') void embedCatalog(catalog.get()).catch(() => undefined);
    });
  return {
    'skills/match': async (req) => {
      const c = catalog.get();
      const t0 = deps.now();
      syncSkillIndexes(c, { prime: deps.primeMatcher });
      if (deps.embedInBackground) void embedCatalog(c).catch(() => undefined);
      const t = deps.now();
      const ms = (x: number) => Math.round(x * 1000) / 1000;
      // The message's embedding is part of the match's time (computed off this thread).
      const dense = await denseQuery(req.message);
      const e5 = e5MatchStatus(c);
      if (!dense && e5.used) Object.assign(e5, { used: false, reason: 'no content word in the message' });
      if (req.explain || req.explain_skill !== undefined) {
        const { matches, ...explain } = explainMatch(c, req.message, {
          limit: req.limit ?? 5,
          skill: req.explain_skill,
          skill_scope: req.explain_scope,
          dense,
        });
        // `took_ms` is everything the call waited for (index upkeep and the message's vector too).
        const res = {
          matches,
          took_ms: ms(deps.now() - t0),
          index_ms: ms(t - t0),
          e5,
          explain: { ...explain, e5 },
        };
        deps.onMatched?.(matches);
        return res;
      }
      const matches = matchSkills(c, req.message, { limit: req.limit ?? 5, dense });
      const res = { matches, took_ms: ms(deps.now() - t0), index_ms: ms(t - t0), e5 };
      deps.onMatched?.(matches);
      return res;
    },

    'skills/embed': async (req) => {
      const c = catalog.get();
      const t0 = deps.now();
      syncSkillIndexes(c);
      const before = e5MatchStatus(c);
      if (!before.model)
        return {
          model: null,
          reason: before.reason ?? 'the e5 model is not installed',
          embedded: 0,
          total: before.total,
          newly_embedded: 0,
          took_ms: 0,
        };
      await embedCatalog(c, (p) => {
        if (req.run_id) deps.events?.emit('skills/embed-progressed', { run_id: req.run_id, ...p });
      });
      const after = e5MatchStatus(c);
      return {
        model: after.model ?? null,
        embedded: after.embedded,
        total: after.total,
        newly_embedded: Math.max(0, after.embedded - before.embedded),
        took_ms: Math.round(deps.now() - t0),
        ...(after.second
          ? {
              second: {
                model: after.second.model ?? null,
                ...(after.second.model ? {} : { reason: after.second.reason }),
                embedded: after.second.embedded,
                total: after.second.total,
                newly_embedded: Math.max(0, after.second.embedded - (before.second?.embedded ?? 0)),
              },
            }
          : {}),
      };
    },

    'skills/semantic-status': async () => {
      const c = catalog.get();
      syncSkillIndexes(c, { prime: deps.primeMatcher });
      return semanticStatus(c);
    },

    'skills/warm-match': async () => {
      const t0 = deps.now();
      await warmSkillIndexes(catalog.get());
      return { took_ms: Math.round(deps.now() - t0) };
    },
  } satisfies Pick<
    HandlersFor<'skills'>,
    'skills/match' | 'skills/embed' | 'skills/warm-match' | 'skills/semantic-status'
  >;
}
