import { z } from 'zod';
import { improveTriggers, splitTriggerEvals, type TriggerFields } from '../activation/index.js';
import type { CallContext, HandlersFor } from '../contract/channels.js';
import { AppError } from '../contract/errors.js';
import type { ImproveTriggersReq, ImproveTriggersRes } from '../contract/skills.js';
import { type Llm, modelId } from '../llm/index.js';
import { loadSkillPrompts, readTriggerEvals, resolveOrThrow, type SkillCatalog } from '../skills/index.js';
import { assertPinned } from '../sources/index.js';
import { PromptEngine } from '../templates/index.js';

/** The Composer agent's skill holds the loop's prompts beside its others (seed-skills/composer-agent.json). */
const AGENT_SKILL = 'Composer Agent';
const PARTS = ['Triggers System', 'Triggers'] as const;
/** Fewer than this and the held-out part is one eval or none: the check would say nothing. */
const MIN_EVALS = 6;

/** What the model must give back: fields the skill could hold (the Agent Skills limit on descriptions). */
const ProposalSchema = z.object({
  description: z.string().trim().min(1).max(1024),
  trigger_phrases: z.array(z.string().trim().min(1).max(200)).max(12),
});

/** The first JSON object in a reply (models wrap it in prose or a code fence despite being asked). */
function parseProposal(text: string): TriggerFields | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  try {
    const r = ProposalSchema.safeParse(JSON.parse(text.slice(start, end + 1)));
    if (!r.success) return null;
    return { description: r.data.description, trigger_phrases: [...new Set(r.data.trigger_phrases)] };
  } catch {
    return null;
  }
}

/**
 * `skills/improve-triggers`: skill-creator's description loop on phase 1. The model sees only the
 * train part of the skill's trigger evals; each proposal is measured on copies of the stores;
 * the best one is checked on the held-out part. Nothing is saved: the Composer or the CLI applies
 * the proposal, and the save's own trigger-regression check runs then.
 */
export function createImproveTriggersHandler(deps: {
  catalog: () => SkillCatalog;
  llm: () => Llm | null;
  now: () => number;
}): Pick<HandlersFor<'skills'>, 'skills/improve-triggers'> {
  return {
    'skills/improve-triggers': async (
      req: ImproveTriggersReq,
      ctx: CallContext,
    ): Promise<ImproveTriggersRes> => {
      const started = deps.now();
      const catalog = deps.catalog();
      const { skill, scope } = resolveOrThrow(catalog, req.name, req.scope);
      assertPinned(catalog.store(scope), skill, scope);
      const evals = readTriggerEvals(skill);
      const positives = evals.filter((e) => e.should_trigger).length;
      if (evals.length < MIN_EVALS || positives < 2 || positives === evals.length)
        throw new AppError(
          'INVALID_INPUT',
          `skill "${skill.name}" has ${evals.length} trigger evals (${positives} that should fire): improving its description needs at least ${MIN_EVALS}, with some that should fire and some that should not, so a third can be held out to check the proposal. Add them to evals/trigger-evals.json as {"query", "should_trigger"}.`,
        );
      const llm = deps.llm();
      if (!llm)
        throw new AppError(
          'LLM_NOT_CONFIGURED',
          'improving a description needs a model: set one up in Settings → Providers (on the command line: `skilldesk providers`, or --provider and --model)',
        );
      const prompts = loadSkillPrompts(catalog, AGENT_SKILL, PARTS);
      const engine = new PromptEngine();
      const render = (part: (typeof PARTS)[number], vars: Record<string, unknown>) =>
        engine.renderStr(prompts.templates[part], vars, {
          name: `${AGENT_SKILL} / ${part}`,
          undefined: 'semi_strict',
        });
      let inputTokens = 0;
      let outputTokens = 0;
      let cost: number | null = 0;
      const r = await improveTriggers({
        catalog,
        scope,
        skill,
        evals,
        rounds: req.rounds ?? 3,
        signal: ctx.signal,
        propose: async (input) => {
          const out = await llm.generate({
            system: render('Triggers System', {}),
            messages: [
              {
                role: 'user',
                content: render('Triggers', {
                  name: input.name,
                  description: input.current.description,
                  trigger_phrases: input.current.trigger_phrases,
                  missed: input.missed,
                  wrongly: input.wrongly,
                  kept: input.kept,
                  round: input.round,
                }),
              },
            ],
            maxOutputTokens: 800,
            temperature: 0.3,
            timeoutMs: 120_000,
            signal: ctx.signal,
          });
          inputTokens += out.usage.input_tokens;
          outputTokens += out.usage.output_tokens;
          cost = out.estimated_cost == null || cost === null ? null : cost + out.estimated_cost;
          // An answer that is not the object asked for ends the loop with what was measured so far.
          return parseProposal(out.text);
        },
      });
      const split = splitTriggerEvals(evals);
      return {
        name: skill.name,
        scope,
        model: modelId(llm) ?? `${llm.provider}:${llm.model}`,
        train: split.train.length,
        held_out: split.held_out.length,
        before: r.before,
        best: r.best,
        rounds: r.rounds,
        verdict: r.verdict,
        input_tokens: inputTokens,
        output_tokens: outputTokens,
        estimated_cost: cost,
        duration_ms: Math.round(deps.now() - started),
      };
    },
  };
}
