import type { SkillMatch } from '../activation/index.js';
import type { SkillSummary } from '../store/index.js';
import type { RecalledMemory } from './chat-store.js';

/** The base instructions of every turn. */
export const BASE_PROMPT = `You are SkillDesk, a careful and friendly assistant inside a desktop chat app.
Answer directly and concisely; use Markdown when it helps. When a skill fits the request, use it:
read_skill(name) shows its instructions and artifacts; apply_skill(name, ctx) runs its executable
artifacts (prompt templates, sandboxed Python, DSPy programs) with the variables you pass in ctx.
search_skills(query) and list_skills() find other skills. Never invent skill results.`;

/** One index line: `- name: description (when: …) [modalities]`. */
export function indexLine(
  s: Pick<SkillSummary, 'name' | 'description' | 'when' | 'trigger_phrases' | 'modalities'>,
): string {
  const when = [s.when, ...(s.trigger_phrases ?? [])].filter(Boolean).join(', ');
  const modal =
    s.modalities?.length && !(s.modalities.length === 1 && s.modalities[0] === 'text')
      ? ` [${s.modalities.join(', ')}]`
      : '';
  const desc = s.description.replace(/\s+/g, ' ').trim();
  return `- ${s.name}: ${desc}${when ? ` (when: ${when})` : ''}${modal}`;
}

/** What the system prompt is built from. */
export interface SystemPromptParts {
  base?: string;
  /** Phase-1 matches for this message, with their catalog entries. */
  matches: Array<{ match: SkillMatch; entry: SkillSummary }>;
  /** Every enabled skill, matched ones first, when the catalog fits the listing budget. */
  catalog?: SkillSummary[];
  /** How many enabled skills phase 1 left out of the listing (said, so the model can look). */
  unlisted?: number;
  /** Always-on skills: name and the instructions to inject. */
  alwaysOn: Array<{ name: string; instructions: string }>;
  memory: RecalledMemory[];
}

/** Compose the turn's system prompt: base, skill index, always-on instructions, recalled memory. */
export function buildSystemPrompt(p: SystemPromptParts): string {
  const parts = [p.base ?? BASE_PROMPT];
  const more =
    p.unlisted && p.unlisted > 0
      ? `\n(${p.unlisted} other skill${p.unlisted === 1 ? ' is' : 's are'} not listed here: search_skills(query) or list_skills() finds them.)`
      : '';
  if (p.catalog && p.catalog.length > 0) {
    parts.push(
      `## Skills\nThe skills you can use (read one with read_skill before applying it); those that fit this message best come first:\n${p.catalog.map((e) => indexLine(e)).join('\n')}`,
    );
  } else if (p.matches.length > 0) {
    parts.push(
      `## Skills\nSkills that may fit this message (read one with read_skill before applying it):\n${p.matches.map((m) => indexLine(m.entry)).join('\n')}${more}`,
    );
  } else if (p.catalog === undefined) {
    parts.push(
      '## Skills\nNo skill matched this message; search_skills(query) or list_skills() can still find one.',
    );
  }
  for (const a of p.alwaysOn) parts.push(`## Always-on skill: ${a.name}\n${a.instructions.trim()}`);
  if (p.memory.length > 0) {
    const lines = p.memory.map(
      (m) => `- (${m.created_at.slice(0, 10)}, ${m.role}) ${oneLine(m.content, 400)}`,
    );
    parts.push(`## Memory\nEarlier messages in this workspace that may be relevant:\n${lines.join('\n')}`);
  }
  return parts.join('\n\n');
}

function oneLine(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}
