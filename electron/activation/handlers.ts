import type { HandlersFor } from '../contract/channels.js';
import type { CatalogRef } from '../skills/index.js';
import { denseQuery, e5MatchStatus, embedCatalog } from './full-match.js';
import { explainMatch, matchSkills, syncSkillIndexes, warmSkillIndexes } from './phase1.js';

/** What the activation slice needs. */
export interface ActivationHandlerDeps {
  catalog: CatalogRef;
  /** Monotonic milliseconds, for `took_ms`. */
  now: () => number;
  /**
   * Embed skills that have no e5 vector yet before matching (the CLI: a one-shot process would
   * otherwise exit with the work undone, or stay alive after its answer); else they are embedded
   * in the background and match by the fast path's signals meanwhile (the app).
   */
  embedBeforeMatch?: boolean;
  /** Told of each match's skills (the sandbox warm-up's hook); never delays the reply. */
  onMatched?: (matches: ReadonlyArray<{ name: string; scope: 'account' | 'workspace' }>) => void;
}

/** `skills/match`: the full phase 1 over the merged catalog, with its explanation on request. */
export function createActivationHandlers(deps: ActivationHandlerDeps) {
  const { catalog } = deps;
  return {
    'skills/match': async (req) => {
      const c = catalog.get();
      const t0 = deps.now();
      syncSkillIndexes(c);
      const embedding = embedCatalog(c);
      if (deps.embedBeforeMatch) await embedding;
      else void embedding.catch(() => undefined);
      const t = deps.now();
      const ms = (x: number) => Math.round(x * 1000) / 1000;
      // The message's embedding is part of the match's time (computed off this thread).
      const dense = await denseQuery(req.message);
      if (req.explain || req.explain_skill !== undefined) {
        const { matches, ...explain } = explainMatch(c, req.message, {
          limit: req.limit ?? 5,
          skill: req.explain_skill,
          skill_scope: req.explain_scope,
          dense,
        });
        const e5 = e5MatchStatus(c);
        if (!dense && e5.used) Object.assign(e5, { used: false, reason: 'no content word in the message' });
        const res = {
          matches,
          took_ms: ms(deps.now() - t),
          index_ms: ms(t - t0),
          explain: { ...explain, e5 },
        };
        deps.onMatched?.(matches);
        return res;
      }
      const matches = matchSkills(c, req.message, { limit: req.limit ?? 5, dense });
      const res = { matches, took_ms: ms(deps.now() - t), index_ms: ms(t - t0) };
      deps.onMatched?.(matches);
      return res;
    },
    'skills/warm-match': async () => {
      const t0 = deps.now();
      await warmSkillIndexes(catalog.get());
      return { took_ms: Math.round(deps.now() - t0) };
    },
  } satisfies Pick<HandlersFor<'skills'>, 'skills/match' | 'skills/warm-match'>;
}
