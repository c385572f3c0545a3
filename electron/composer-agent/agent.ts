/**
 * The Composer agent: asks the configured model for a whole skill package, validates each answer
 * and sends what failed back to the model until it passes or the rounds run out. Its prompts are
 * the prompt templates of the "Composer Agent" skill (seed-skills/composer-agent.json), which a
 * user can fork into a workspace and change.
 */
import type { ComposeRoundView, DraftIssueView } from '../contract/composer.js';
import { AppError } from '../contract/errors.js';
import type { Llm, LlmMessage } from '../llm/index.js';
import { loadSkillPrompts, type SkillCatalog, type SkillPrompts } from '../skills/index.js';
import { PromptEngine } from '../templates/index.js';
import { type Draft, draftFromAnswer, extractJson } from './draft.js';

/** The skill whose templates are the agent's prompts. */
export const AGENT_SKILL = 'Composer Agent';
const PARTS = ['System', 'Create', 'Repair', 'Refine'] as const;
type Part = (typeof PARTS)[number];

/** The agent's prompt templates, and where they came from. */
export type AgentPrompts = SkillPrompts<Part>;

/** The agent's prompts: the catalog's "Composer Agent" skill, any missing part from the shipped one. */
export function loadAgentPrompts(catalog: SkillCatalog | null): AgentPrompts {
  return loadSkillPrompts(catalog, AGENT_SKILL, PARTS);
}

/** One run of the agent: a first message, then repairs. */
export interface AgentRunOptions {
  llm: Llm;
  prompts: AgentPrompts;
  /** The first user message, rendered from `Create` or `Refine`. */
  first: string;
  /** Repair rounds after the first answer. */
  maxRounds: number;
  validate: (draft: Draft) => Promise<DraftIssueView[]>;
  onRound?: (round: ComposeRoundView) => void;
  signal?: AbortSignal;
  now: () => number;
  engine?: PromptEngine;
}

/** What a run produced: the last draft (null when no answer parsed), whether it passed, each round. */
export interface AgentRunResult {
  draft: Draft | null;
  ok: boolean;
  rounds: ComposeRoundView[];
}

/** Render one of the agent's templates. */
export function renderPrompt(
  prompts: AgentPrompts,
  part: Part,
  vars: Record<string, unknown>,
  engine = new PromptEngine(),
): string {
  return engine.renderStr(prompts.templates[part], vars, {
    name: `${AGENT_SKILL} / ${part}`,
    undefined: 'semi_strict',
  });
}

/** Ask, validate, repair: at most `1 + maxRounds` model calls. Nothing is saved. */
export async function runAgent(o: AgentRunOptions): Promise<AgentRunResult> {
  const engine = o.engine ?? new PromptEngine();
  const system = renderPrompt(o.prompts, 'System', {}, engine);
  const messages: LlmMessage[] = [{ role: 'user', content: o.first }];
  const rounds: ComposeRoundView[] = [];
  let last: Draft | null = null;
  for (let round = 0; round <= o.maxRounds; round++) {
    if (o.signal?.aborted) throw new AppError('CANCELLED', 'the Composer agent was cancelled');
    const t0 = o.now();
    const reply = await o.llm.generate({ system, messages, signal: o.signal, timeoutMs: 300_000 });
    messages.push({ role: 'assistant', content: reply.text });
    const json = extractJson(reply.text);
    let issues: DraftIssueView[];
    if (!json.ok) issues = [{ stage: 'json', path: '(reply)', message: json.message }];
    else {
      const parsed = draftFromAnswer(json.value);
      issues = parsed.issues;
      if (parsed.draft) {
        last = parsed.draft;
        issues = await o.validate(parsed.draft);
      }
    }
    const view: ComposeRoundView = {
      round,
      ok: issues.length === 0,
      issues,
      input_tokens: reply.usage.input_tokens,
      output_tokens: reply.usage.output_tokens,
      estimated_cost: reply.estimated_cost,
      duration_ms: Math.round(o.now() - t0),
    };
    rounds.push(view);
    o.onRound?.(view);
    if (view.ok) return { draft: last, ok: true, rounds };
    if (round < o.maxRounds) {
      messages.push({ role: 'user', content: renderPrompt(o.prompts, 'Repair', { issues }, engine) });
    }
  }
  return { draft: last, ok: false, rounds };
}
