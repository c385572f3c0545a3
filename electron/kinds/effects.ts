/**
 * What running a skill may do beyond computing an answer: its declared effects. A skill
 * whose run may write or reach the network is approved by the user before `apply_skill` runs it,
 * through the same flow as MCP tools (server `skill`, tool = the skill's name).
 *
 * Effects come from three places:
 * - the package metadata field `effects` (space or comma separated: `network`, `write`, or `none`),
 *   and an artifact's own `metadata.effects` (a string or a list) for the artifacts that run;
 * - Agent Skills `allowed-tools`: `Write`, `Edit`, `MultiEdit` and `NotebookEdit` write, `WebFetch`
 *   and `WebSearch` reach the network, `Bash` does both (`mcp__…` entries are MCP tools, approved
 *   on their own call);
 * - the `skilldesk` host functions a `code_template`'s source calls, classified in
 *   `HOST_FUNCTION_EFFECTS` (each kind says what its artifacts may do: `electron/kinds/`). Only
 *   `http_request` reaches the network (and only hosts the user granted the skill); the workspace
 *   functions only read, and `llm_query`/`llm_query_batched` go to the chat's own configured
 *   provider, like the turn itself (and a `dspy_module` or `prompt_template` calls the same model),
 *   so they are not counted as side effects.
 */
import { isArtifactKind } from '../contract/kinds.js';
import type { HostFunctionName } from '../sandbox/index.js';
import { KINDS } from './index.js';

/** A side effect a skill's run may have. */
export type SkillEffect = 'network' | 'write';

/** The effects of one run and where each was declared, in words for the approval card. */
export interface SkillEffects {
  effects: SkillEffect[];
  reasons: string[];
}

/**
 * The effects of each sandbox host function. Typed over every function name, so a new host
 * function cannot be added without saying whether it writes or reaches the network.
 */
export const HOST_FUNCTION_EFFECTS: Readonly<Record<HostFunctionName, readonly SkillEffect[]>> = {
  workspace_search: [],
  get_page: [],
  get_pages: [],
  get_pages_by_type: [],
  get_tags: [],
  get_references: [],
  get_history: [],
  llm_query: [],
  llm_query_batched: [],
  http_request: ['network'],
};

const ALLOWED_TOOL_EFFECTS: Record<string, readonly SkillEffect[]> = {
  write: ['write'],
  edit: ['write'],
  multiedit: ['write'],
  notebookedit: ['write'],
  webfetch: ['network'],
  websearch: ['network'],
  bash: ['network', 'write'],
};

const WORDS: Record<string, SkillEffect | 'none'> = {
  network: 'network',
  net: 'network',
  internet: 'network',
  write: 'write',
  writes: 'write',
  none: 'none',
};

/** The parts of a skill its effects are read from (a stored `Skill` fits). */
export interface SkillForEffects {
  metadata: Record<string, string> | null;
  allowed_tools: string | null;
  artifacts: ReadonlyArray<{
    name: string;
    kind: string;
    content: string;
    metadata: Record<string, unknown> | null;
  }>;
}

/**
 * The effects of running `skill` (only `artifact` when given). A word in an `effects` field that is
 * not `network`, `write` or `none` counts as both: an unknown effect is asked about, not ignored.
 */
export function skillEffects(
  skill: SkillForEffects,
  artifact?: string,
  hostEffects: Readonly<Record<string, readonly SkillEffect[]>> = HOST_FUNCTION_EFFECTS,
): SkillEffects {
  const found = new Set<SkillEffect>();
  const reasons: string[] = [];
  const add = (effects: readonly SkillEffect[], why: string) => {
    if (effects.length === 0) return;
    for (const e of effects) found.add(e);
    reasons.push(`${effects.join(' and ')} (${why})`);
  };
  const declared = (value: unknown, where: string) => {
    const words = (Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : [])
      .flatMap((v) => v.split(/[\s,]+/))
      .map((w) => w.trim().toLowerCase())
      .filter(Boolean);
    for (const w of words) {
      const known = WORDS[w];
      if (known === 'none') continue;
      add(known ? [known] : ['network', 'write'], known ? where : `${where} names unknown effect "${w}"`);
    }
  };

  declared(skill.metadata?.effects, 'metadata effects');
  for (const token of (skill.allowed_tools ?? '').split(/[\s,]+/).filter(Boolean)) {
    const tool = /^([A-Za-z]+)(?:\(|$)/.exec(token)?.[1]?.toLowerCase();
    const effects = tool ? ALLOWED_TOOL_EFFECTS[tool] : undefined;
    if (effects) add(effects, `allowed-tools ${token}`);
  }
  const runs = artifact ? skill.artifacts.filter((a) => a.name === artifact) : skill.artifacts;
  for (const a of runs) {
    declared(a.metadata?.effects, `artifact ${a.name} effects`);
    // What the kind itself says its artifact may do (a code_template: the host functions it calls).
    const kind = isArtifactKind(a.kind) ? KINDS[a.kind] : null;
    for (const e of kind?.effects(a, hostEffects) ?? []) add(e.effects, e.why);
  }
  const order: SkillEffect[] = ['network', 'write'];
  return { effects: order.filter((e) => found.has(e)), reasons: [...new Set(reasons)] };
}

/** The effects in words: "may reach the network and write". */
export function describeEffects(e: SkillEffects): string {
  const what = e.effects.map((x) => (x === 'network' ? 'reach the network' : 'write files or data'));
  return `This skill may ${what.join(' and ')}: ${e.reasons.join('; ')}.`;
}
