import type { HandlersFor } from '../contract/channels.js';
import type { CatalogRef } from '../skills/index.js';
import { explainMatch, matchSkills, syncSkillIndexes } from './phase1.js';

/** What the activation slice needs. */
export interface ActivationHandlerDeps {
  catalog: CatalogRef;
  /** Monotonic milliseconds, for `took_ms`. */
  now: () => number;
}

/** `skills/match`: phase 1 over the merged catalog, with its explanation on request. */
export function createActivationHandlers(deps: ActivationHandlerDeps) {
  const { catalog } = deps;
  return {
    'skills/match': (req) => {
      const c = catalog.get();
      const t0 = deps.now();
      syncSkillIndexes(c);
      const t = deps.now();
      const ms = (x: number) => Math.round(x * 1000) / 1000;
      if (req.explain || req.explain_skill !== undefined) {
        const { matches, ...explain } = explainMatch(c, req.message, {
          limit: req.limit ?? 5,
          skill: req.explain_skill,
          skill_scope: req.explain_scope,
        });
        return { matches, took_ms: ms(deps.now() - t), index_ms: ms(t - t0), explain };
      }
      const matches = matchSkills(c, req.message, { limit: req.limit ?? 5 });
      return { matches, took_ms: ms(deps.now() - t), index_ms: ms(t - t0) };
    },
  } satisfies Pick<HandlersFor<'skills'>, 'skills/match'>;
}
