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
 * Files that name a kind by literal outside the registries, with how many they hold (read from the
 * syntax tree: names in comments are no decision). The numbers only go down: a new literal (or a
 * new file with one) fails the test, and so does a file that now holds fewer than listed (lower
 * its number, or remove it at 0). 167 literals in 54 files when the guard came in; 35 in 15 since
 * the tools' facts (`skill_use`, `runs_code`, `read_only`) and the kinds' `declares` hook took
 * the last decisions by a tool's name and the LLM skill's. No built-in tool is named outside the
 * registries. What stays, and why:
 * - type arguments the compiler checks (`ArtifactHandler<'prompt_template'>` and the handler
 *   factories in `dispatch/handlers.ts`): a name that is not a kind fails `tsc`, so they cannot
 *   drift;
 * - the DSPy program's own features (`dspy-upgrade.ts`, `skill-run-handlers.ts`: compiling and
 *   re-optimizing a program; the Composer agent's `AgentPanels.tsx`): features about one kind,
 *   not decisions among kinds;
 * - prompt-template features (`skill-prompts.ts`, `TestPanel.tsx`, `composer-store.ts`,
 *   `ComposerExtras.tsx`, `composer-agent/validate.ts`, the CLI's template check in
 *   `skill-version-commands.ts`) and the Composer's starter drafts
 *   (`renderer/features/composer/draft.ts`);
 * - words that are not kinds at all: MCP's `resource` content type (`mcp/hub.ts`), the MiniJinja
 *   template's name in `sandbox/code-template.ts`, fixtures (`test-catalog.ts`, `test-support.ts`).
 * The total is reproduced in docs/architecture.md.
 */
const KNOWN: Readonly<Record<string, number>> = {
  'electron/activation/test-catalog.ts': 1,
  'electron/cli/skill-version-commands.ts': 1,
  'electron/composer-agent/validate.ts': 2,
  'electron/dispatch/dspy-upgrade.ts': 2,
  'electron/dispatch/handlers.ts': 9,
  'electron/dispatch/skill-run-handlers.ts': 2,
  'electron/mcp/hub.ts': 2,
  'electron/sandbox/code-template.ts': 2,
  'electron/skills/skill-prompts.ts': 2,
  'renderer/features/chat/ComposerExtras.tsx': 2,
  'renderer/features/composer/TestPanel.tsx': 2,
  'renderer/features/composer/agent/AgentPanels.tsx': 1,
  'renderer/features/composer/composer-store.ts': 2,
  'renderer/features/composer/draft.ts': 4,
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
    expect(countLiterals("type H = Handler<'prompt_template'>; const t = `run_python`;")).toBe(2);
    expect(
      countLiterals(
        "// a `run_python` call\n/* apply_skill's 'code_template' */ const s = 'ran run_script';",
      ),
    ).toBe(0);
    expect(countLiterals("const r = /'run_python'/; const d = a / b; x('read_skill');")).toBe(1);
  });
});

/** Every literal left is a kind's name: the kind names alone are held to the same list. */
const KNOWN_KIND_NAMES = KNOWN;

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
