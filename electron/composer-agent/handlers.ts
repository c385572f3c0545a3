/** The `composer/*` channels: create and refine a draft with the agent, merge accepted changes. */
import type { EventHub, HandlersFor } from '../contract/channels.js';
import type { ChatModelChoice } from '../contract/chat.js';
import { DEFAULT_REPAIR_ROUNDS } from '../contract/composer.js';
import { AppError } from '../contract/errors.js';
import type { Llm } from '../llm/index.js';
import { createRunRegistry } from '../progress/index.js';
import type { SkillCatalog } from '../skills/index.js';
import { PromptEngine } from '../templates/index.js';
import { loadAgentPrompts, renderPrompt, runAgent } from './agent.js';
import { applyChanges, diffDrafts } from './changes.js';
import { answerFromDraft, type Draft, isEvalsArtifact } from './draft.js';
import { type CodeDryRunner, validateDraft } from './validate.js';

/** What the composer slice needs. */
export interface ComposerHandlerDeps {
  /** The open catalog (its "Composer Agent" skill holds the prompts). */
  catalog: () => SkillCatalog | null;
  /** The model the agent calls, or null when none is configured. */
  /** The model of a run: the request's choice, else the default provider's; null when none is set up. */
  llm: (choice?: ChatModelChoice) => Llm | null;
  events: Pick<EventHub, 'emit'>;
  now: () => number;
  /** Runs code templates in the sandbox during the dry run (absent: code is not dry-run). */
  runCode?: CodeDryRunner;
}

/** Build the composer slice. Runs given a `run_id` can be stopped with `composer/cancel`. */
export function createComposerHandlers(deps: ComposerHandlerDeps) {
  const engine = new PromptEngine();
  const runs = createRunRegistry();

  const modelOrThrow = (choice?: ChatModelChoice): Llm => {
    const llm = deps.llm(choice);
    if (!llm) {
      throw new AppError(
        'LLM_NOT_CONFIGURED',
        'the Composer agent needs a model: choose a provider in Settings (or pass --provider and --model)',
      );
    }
    return llm;
  };

  async function run(
    first: (prompts: ReturnType<typeof loadAgentPrompts>) => string,
    req: { max_rounds?: number; run_id?: string; model?: ChatModelChoice },
    signal: AbortSignal | undefined,
  ) {
    const llm = modelOrThrow(req.model);
    const prompts = loadAgentPrompts(deps.catalog());
    const tracked = runs.start(req.run_id, signal);
    const maxRounds = req.max_rounds ?? DEFAULT_REPAIR_ROUNDS;
    try {
      const r = await runAgent({
        llm,
        prompts,
        engine,
        first: first(prompts),
        maxRounds,
        signal: tracked.signal,
        now: deps.now,
        validate: (d) => validateDraft(d, { engine, runCode: deps.runCode, signal: tracked.signal }),
        onRound: (round) => {
          if (req.run_id)
            deps.events.emit('composer/round-finished', {
              run_id: req.run_id,
              max_rounds: maxRounds,
              ...round,
            });
        },
      });
      return { ...r, model: `${llm.provider}:${llm.model}` };
    } finally {
      tracked.done();
    }
  }

  return {
    'composer/create': async (req, ctx) => {
      const r = await run(
        (p) => renderPrompt(p, 'Create', { description: req.description }, engine),
        req,
        ctx.signal,
      );
      return { draft: r.draft ?? {}, ok: r.ok, rounds: r.rounds, changes: [], model: r.model };
    },

    'composer/refine': async (req, ctx) => {
      const base: Draft = req.draft;
      const r = await run(
        (p) =>
          renderPrompt(
            p,
            'Refine',
            { draft: JSON.stringify(answerFromDraft(base), null, 2), feedback: req.feedback },
            engine,
          ),
        req,
        ctx.signal,
      );
      // The proposal keeps the base's id: the agent edits this skill, it does not make another.
      const proposed = r.draft
        ? keepSameEvals(base, { ...r.draft, ...(base.id !== undefined ? { id: base.id } : {}) })
        : base;
      return {
        draft: proposed,
        ok: r.ok,
        rounds: r.rounds,
        changes: r.draft ? diffDrafts(base, proposed) : [],
        model: r.model,
      };
    },

    'composer/apply-changes': async (req) => {
      const draft = applyChanges(req.base, req.proposed, req.accept);
      return { draft, issues: await validateDraft(draft, { engine }) };
    },

    'composer/cancel': (req) => runs.cancel(req.run_id),
  } satisfies HandlersFor<'composer'>;
}

/** The model re-serialises the evals file: when its content means the same, keep the base's text. */
function keepSameEvals(base: Draft, proposed: Draft): Draft {
  const find = (d: Draft) =>
    (Array.isArray(d.artifacts) ? (d.artifacts as Array<Record<string, unknown>>) : []).find(isEvalsArtifact);
  const before = find(base);
  const after = find(proposed);
  if (!before || !after || typeof before.content !== 'string' || typeof after.content !== 'string')
    return proposed;
  try {
    if (JSON.stringify(JSON.parse(before.content)) !== JSON.stringify(JSON.parse(after.content)))
      return proposed;
  } catch {
    return proposed;
  }
  return {
    ...proposed,
    artifacts: (proposed.artifacts as Array<Record<string, unknown>>).map((a) =>
      a === after ? { ...a, content: before.content } : a,
    ),
  };
}
