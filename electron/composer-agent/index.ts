// The Composer agent: a skill package from a description, validated and repaired by
// the model, refined in conversation one artifact change at a time.
export { AGENT_SKILL, type AgentPrompts, loadAgentPrompts, renderPrompt, runAgent } from './agent.js';
export { applyChanges, artifactChangeKey, diffDrafts, FIELDS_KEY } from './changes.js';
export { createCodeDryRunner } from './code-dry-run.js';
export { answerFromDraft, type Draft, draftFromAnswer, extractJson, isEvalsArtifact } from './draft.js';
export { type ComposerHandlerDeps, createComposerHandlers } from './handlers.js';
export { type CodeDryRun, type CodeDryRunner, MIN_EVALS, validateDraft } from './validate.js';
