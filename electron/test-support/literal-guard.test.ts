import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './index.js';
import {
  countLiterals,
  countProviderLiterals,
  kindLiteralCounts,
  literalCounts,
  providerLiteralCounts,
} from './literal-guard.js';

/**
 * Files that name a kind or a built-in tool by literal, as they stood when the guard came in, with
 * how many they hold. The numbers only go down: a new literal (or a new file with one) fails the
 * test, and so does a file that now holds fewer than listed (lower its number, or remove it at 0).
 * The total is reproduced in docs/architecture.md.
 */
const KNOWN: Readonly<Record<string, number>> = {
  'electron/activation/phase1.ts': 1,
  'electron/activation/test-catalog.ts': 1,
  'electron/chat/engine.ts': 8,
  'electron/chat/eval-turn.ts': 3,
  'electron/cli/skill-version-commands.ts': 1,
  'electron/composer-agent/draft.ts': 1,
  'electron/composer-agent/validate.ts': 2,
  'electron/dispatch/dspy-upgrade.ts': 4,
  'electron/dispatch/eval-handlers.ts': 3,
  'electron/dispatch/handlers.ts': 11,
  'electron/dispatch/python-runner.ts': 3,
  'electron/dispatch/run-scope.ts': 2,
  'electron/dispatch/runtime.ts': 4,
  'electron/dispatch/skill-run-handlers.ts': 3,
  'electron/dispatch/skill-scripts.ts': 2,
  'electron/host.ts': 1,
  'electron/mcp-serve/server.ts': 5,
  'electron/mcp/chat-tools.ts': 2,
  'electron/mcp/hub.ts': 2,
  'electron/sandbox/code-template.ts': 2,
  'electron/sandbox/component-run.ts': 2,
  'electron/sandbox/python-run.ts': 1,
  'electron/scripts/native/sandbox.ts': 1,
  'electron/sidecar-client/artifact.ts': 1,
  'electron/sidecar-client/protocol.ts': 2,
  'electron/skills/lint.ts': 1,
  'electron/skills/package-schema.ts': 1,
  'electron/skills/skill-prompts.ts': 3,
  'electron/sources/pin.ts': 2,
  'electron/store/file-store.ts': 1,
  'renderer/features/canvas/script-output.ts': 2,
  'renderer/features/chat/ChatFiles.tsx': 3,
  'renderer/features/chat/ComposerExtras.tsx': 2,
  'renderer/features/chat/ScriptFiles.tsx': 1,
  'renderer/features/chat/SkillActivity.tsx': 5,
  'renderer/features/composer/ComponentBar.tsx': 1,
  'renderer/features/composer/TestPanel.tsx': 2,
  'renderer/features/composer/agent/AgentPanels.tsx': 1,
  'renderer/features/composer/composer-store.ts': 2,
  'renderer/features/composer/draft.ts': 4,
  'renderer/features/settings/PythonCard.tsx': 1,
  'renderer/test-support.ts': 1,
};

describe('kind and tool names outside their registries', () => {
  it('appear no more often than the shrinking list allows', () => {
    const found = literalCounts(PROJECT_ROOT);
    const added = Object.entries(found)
      .filter(([file, n]) => n > (KNOWN[file] ?? 0))
      .map(([file, n]) => `${file}: ${n} (allowed ${KNOWN[file] ?? 0})`);
    const fixed = Object.entries(KNOWN)
      .filter(([file, n]) => (found[file] ?? 0) < n)
      .map(([file, n]) => `${file}: ${found[file] ?? 0} (listed ${n})`);
    expect(added, 'ask the registry (KINDS, TOOL_MODULES) instead of naming a kind or tool').toEqual([]);
    expect(fixed, 'fewer than listed: lower these numbers in KNOWN').toEqual([]);
  });

  it('counts decisions by name and leaves plain English alone', () => {
    expect(countLiterals("switch (a.kind) { case 'code_template': break; }")).toBe(1);
    expect(countLiterals("if (kind === 'example') x();")).toBe(1);
    expect(countLiterals("const a = { kind: 'resource' };")).toBe(1);
    expect(countLiterals("call('run_python', args)")).toBe(1);
    expect(countLiterals("const label = 'example'; const f = { description: 'approach' };")).toBe(0);
  });
});

/**
 * The kind names (only) in {@link KNOWN}: 117 in 39 files when the kinds' behaviour hooks came in
 * (export rule, review facts, pipeline, index reading, the Composer's `KIND_EDITORS`), 70 in 30
 * since. What stays, and why:
 * - type arguments the compiler checks (`ArtifactHandler<'prompt_template'>` in
 *   `dispatch/handlers.ts`, `runtime.ts`; `sidecar-client/`; `sandbox/component-run.ts`): a name
 *   that is not a kind fails `tsc`, so they cannot drift;
 * - the DSPy program's own features (`dspy-upgrade.ts`, `skill-run-handlers.ts`: compiling and
 *   re-optimizing a program; the Composer agent's `AgentPanels.tsx`): features about one kind,
 *   not decisions among kinds; what a saved state is and who may carry one is the kind's `state`
 *   (`package-schema.ts` names a prompt template only in a message);
 *   The Agent Skills import's mapping is now the kinds' own (`agentSkills.fromSkillMd`, `reads`);
 * - prompt-template features (`skill-prompts.ts`, `TestPanel.tsx`, `composer-store.ts`,
 *   `ComposerExtras.tsx`, `composer-agent/validate.ts`) and the Composer's starter drafts
 *   (`renderer/features/composer/draft.ts`);
 * - words that are not kinds at all: MCP's `resource` content type (`mcp/hub.ts`), the MiniJinja
 *   template's name in `sandbox/code-template.ts`, fixtures (`test-catalog.ts`, `test-support.ts`).
 * Like {@link KNOWN}, it may only shrink.
 */
const KNOWN_KIND_NAMES: Readonly<Record<string, number>> = {
  'electron/activation/test-catalog.ts': 1,
  'electron/cli/skill-version-commands.ts': 1,
  'electron/composer-agent/draft.ts': 1,
  'electron/composer-agent/validate.ts': 2,
  'electron/dispatch/dspy-upgrade.ts': 4,
  'electron/dispatch/handlers.ts': 11,
  'electron/dispatch/runtime.ts': 3,
  'electron/dispatch/skill-run-handlers.ts': 3,
  'electron/dispatch/skill-scripts.ts': 1,
  'electron/host.ts': 1,
  'electron/mcp-serve/server.ts': 1,
  'electron/mcp/hub.ts': 2,
  'electron/sandbox/code-template.ts': 2,
  'electron/sandbox/component-run.ts': 2,
  'electron/sidecar-client/artifact.ts': 1,
  'electron/sidecar-client/protocol.ts': 2,
  'electron/skills/lint.ts': 1,
  'electron/skills/package-schema.ts': 1,
  'electron/skills/skill-prompts.ts': 3,
  'renderer/features/chat/ComposerExtras.tsx': 2,
  'renderer/features/composer/ComponentBar.tsx': 1,
  'renderer/features/composer/TestPanel.tsx': 2,
  'renderer/features/composer/agent/AgentPanels.tsx': 1,
  'renderer/features/composer/composer-store.ts': 2,
  'renderer/features/composer/draft.ts': 4,
  'renderer/test-support.ts': 1,
};

describe('kind names outside the kinds registry', () => {
  it('appear no more often than the shrinking list allows', () => {
    const found = kindLiteralCounts(PROJECT_ROOT);
    const added = Object.entries(found)
      .filter(([file, n]) => n > (KNOWN_KIND_NAMES[file] ?? 0))
      .map(([file, n]) => `${file}: ${n} (allowed ${KNOWN_KIND_NAMES[file] ?? 0})`);
    const fixed = Object.entries(KNOWN_KIND_NAMES)
      .filter(([file, n]) => (found[file] ?? 0) < n)
      .map(([file, n]) => `${file}: ${found[file] ?? 0} (listed ${n})`);
    expect(added, "give the kind's module a hook (electron/kinds/types.ts) instead of naming a kind").toEqual(
      [],
    );
    expect(fixed, 'fewer than listed: lower these numbers in KNOWN_KIND_NAMES').toEqual([]);
  });
});

/**
 * Files that name a provider id outside `electron/contract/`, `electron/llm/` and tests, with how
 * many they hold. Empty since `PROVIDER_FACTS` came in (variant rules, settings, MCP sampling and
 * the renderer's labels derive from it); like {@link KNOWN}, it may only shrink.
 */
const KNOWN_PROVIDER_IDS: Readonly<Record<string, number>> = {};

describe('provider ids outside the contract and the model layer', () => {
  it('appear no more often than the shrinking list allows', () => {
    const found = providerLiteralCounts(PROJECT_ROOT);
    const added = Object.entries(found)
      .filter(([file, n]) => n > (KNOWN_PROVIDER_IDS[file] ?? 0))
      .map(([file, n]) => `${file}: ${n} (allowed ${KNOWN_PROVIDER_IDS[file] ?? 0})`);
    const fixed = Object.entries(KNOWN_PROVIDER_IDS)
      .filter(([file, n]) => (found[file] ?? 0) < n)
      .map(([file, n]) => `${file}: ${found[file] ?? 0} (listed ${n})`);
    expect(
      added,
      'read PROVIDER_FACTS (electron/contract/providers.ts) instead of naming a provider',
    ).toEqual([]);
    expect(fixed, 'fewer than listed: lower these numbers in KNOWN_PROVIDER_IDS').toEqual([]);
  });

  it('counts literals and hand-kept maps, not the words around them', () => {
    expect(countProviderLiterals("if (p.kind === 'openai-compatible') x();")).toBe(1);
    expect(countProviderLiterals("const d = (kind = 'openai') => kind;")).toBe(1);
    expect(countProviderLiterals("const NAMES = {\n  openai: 'OpenAI',\n  xai: 'xAI',\n};")).toBe(2);
    expect(countProviderLiterals("const m = {\n  google: 'protobuf',\n};")).toBe(0);
    expect(countProviderLiterals('// the OpenAI wire format; an openai-style server')).toBe(0);
  });
});
