import type { TraceView } from '../../../electron/contract/traces.js';

/**
 * Where a run came from, in words: the chat's title, or what started a run outside any chat
 * (the Composer's test panel, evals, the command line, an MCP client). Ids are internal and never
 * a title; a chat that is gone (deleted, or in a store not open) says so.
 */
export function sessionLabel(id: string, titles: ReadonlyMap<string, string>): string {
  const title = titles.get(id);
  if (title !== undefined) return title.trim() || 'Untitled chat';
  if (id === 'composer') return 'Composer test run';
  if (id === 'evals') return 'Evals';
  if (id.startsWith('cli-')) return 'Command line';
  if (id.startsWith('mcp-')) return 'MCP client';
  return 'A chat not in this list';
}

/**
 * A trace's skill in words: its name; else a Composer run of a draft never saved (its id was made
 * up for that run) or a skill deleted since. Never its id.
 */
export function skillLabel(tr: Pick<TraceView, 'skill_name' | 'session_id'>): string {
  return tr.skill_name ?? (tr.session_id === 'composer' ? 'An unsaved draft' : 'A deleted skill');
}

/** A trace's title: "<skill> in <chat>", as the list and the detail show it. */
export function traceTitle(
  tr: Pick<TraceView, 'skill_name' | 'session_id'>,
  titles: ReadonlyMap<string, string>,
): string {
  return `${skillLabel(tr)} · ${sessionLabel(tr.session_id, titles)}`;
}
