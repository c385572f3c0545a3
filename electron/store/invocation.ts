import YAML from 'yaml';

/**
 * What Claude Code's SKILL.md frontmatter says about who may start a skill. Only the keys SkillDesk
 * honours: `disable-model-invocation` (the model never picks it on its own), `user-invocable`
 * (false: not offered in the chat's `/` menu) and `argument-hint` (shown next to it there).
 */
export interface InvocationFields {
  /** False when the frontmatter says `disable-model-invocation: true`. */
  model_invocable: boolean;
  /** False when the frontmatter says `user-invocable: false`. */
  user_invocable: boolean;
  argument_hint?: string;
}

const KEYS = /^\s*(disable-model-invocation|user-invocable|argument-hint)\s*:/m;
const FRONTMATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** YAML's `true`/`false` and their quoted forms, as Claude Code reads them. */
function flag(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true') return true;
    if (s === 'false') return false;
  }
  return undefined;
}

/**
 * The invocation fields of a skill from the raw frontmatter its body artifact keeps (see
 * `agentSkillToPackage`), or null when it sets none. The stored frontmatter is read at run time
 * rather than copied into columns at import, so skills imported before these fields were honoured
 * are honoured too and an export still writes the author's bytes back.
 */
export function invocationFields(frontmatter: unknown): InvocationFields | null {
  if (typeof frontmatter !== 'string' || !KEYS.test(frontmatter)) return null;
  const m = FRONTMATTER.exec(frontmatter);
  if (!m) return null;
  let data: unknown;
  try {
    data = YAML.parse(m[1]!, { maxAliasCount: 50 });
  } catch {
    // The import parsed it already; a store edited by hand must not break the skill list.
    return null;
  }
  if (!data || typeof data !== 'object') return null;
  const d = data as Record<string, unknown>;
  const hint = d['argument-hint'];
  const out: InvocationFields = {
    model_invocable: flag(d['disable-model-invocation']) !== true,
    user_invocable: flag(d['user-invocable']) !== false,
    ...(typeof hint === 'string' && hint.trim() !== '' ? { argument_hint: hint.trim() } : {}),
  };
  return out.model_invocable && out.user_invocable && out.argument_hint === undefined ? null : out;
}

/** SQL (a skill aliased `s`): the raw frontmatter its SKILL.md body keeps, or NULL. */
export const FRONTMATTER_SQL = `(SELECT json_extract(a.metadata, '$.frontmatter') FROM skill_artifacts a
  WHERE a.skill_id = s.id AND a.kind IN ('approach', 'description') AND a.metadata IS NOT NULL
  ORDER BY a.ordinal LIMIT 1)`;
