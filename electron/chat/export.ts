import type { ExportSessionRes } from '../contract/chat.js';
import { assertNever } from '../contract/errors.js';
import type { BranchMessage, ChatMessage, ChatSession, ChatStore } from './chat-store.js';

/** The version of the JSON export's shape; bumped when a field changes meaning. */
export const CHAT_EXPORT_VERSION = 1;

/** A file name from a chat's title: letters, digits and dashes, never empty. */
export function exportFileName(title: string, ext: 'md' | 'json'): string {
  const base = title
    .normalize('NFKD')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .toLowerCase();
  return `${base || 'chat'}.${ext}`;
}

const usd = (x: number) => `$${x < 0.01 ? x.toFixed(4) : x.toFixed(2)}`;

/** Names a stored model id for people (the provider's label); the id itself when none is given. */
export type ModelNamer = (modelId: string) => string | null;

function usageLine(m: ChatMessage, name?: ModelNamer): string | null {
  if (m.role !== 'assistant' || m.input_tokens == null) return null;
  const parts = [
    (m.model_id && (name?.(m.model_id) ?? m.model_id)) || 'model',
    `${m.input_tokens} in / ${m.output_tokens ?? 0} out`,
  ];
  if (m.estimated_cost != null) parts.push(usd(m.estimated_cost));
  return parts.join(' · ');
}

/** A file of the chat's folder as an export carries it (JSON: with its bytes, base64). */
export interface ExportedChatFile {
  name: string;
  media_type: string;
  size: number;
  data_base64: string;
}

/**
 * Why a chat's granted folders are left out: a grant is a path on the exporting machine, which
 * means nothing (or something else) where the export is opened.
 */
function grantsNotExported(names: string[]): string {
  return `This chat had ${names.length === 1 ? 'a folder' : `${names.length} folders`} of this computer granted (${names.join(', ')}). Grants are not exported: a path on this computer means nothing elsewhere; grant the folders again where the chat is opened.`;
}

/** The branch shown as Markdown: a heading per message, attachments and skills named, usage in a note. */
export function toMarkdown(
  session: ChatSession,
  branch: BranchMessage[],
  files: ExportedChatFile[] = [],
  name?: ModelNamer,
  grantedFolders: string[] = [],
): string {
  const out = [
    `# ${session.title || 'Untitled chat'}`,
    '',
    `_Exported from SkillDesk · started ${session.created_at}_`,
  ];
  for (const m of branch) {
    out.push('', `## ${m.role === 'user' ? 'You' : 'Assistant'}`, '');
    out.push(m.content || (m.status === 'error' ? '_(no reply)_' : '_(empty)_'));
    for (const a of m.attachments ?? []) out.push('', `📎 ${a.name} (${a.size} bytes)`);
    const skills = [...new Set((m.tool_calls ?? []).filter((c) => c.skill).map((c) => c.skill!))];
    if (skills.length) out.push('', `_Skills used: ${skills.join(', ')}_`);
    if (m.error) out.push('', `> **${m.status === 'partial' ? 'Stopped' : 'Failed'}:** ${m.error.message}`);
    const usage = usageLine(m, name);
    if (usage) out.push('', `<sub>${usage}</sub>`);
  }
  if (files.length) {
    out.push('', "## Chat's files", '');
    for (const f of files) out.push(`- ${f.name} (${f.media_type}, ${f.size} bytes)`);
    out.push('', '_The JSON export carries the files themselves._');
  }
  if (grantedFolders.length) out.push('', `_${grantsNotExported(grantedFolders)}_`);
  return `${out.join('\n')}\n`;
}

/**
 * A chat as a file: Markdown is the branch shown, for reading; JSON is every message of every
 * branch (with `parent_id` and attachment texts) and the files of the chat's folder, for keeping
 * or loading elsewhere.
 */
export function exportSession(
  chats: ChatStore,
  session: ChatSession,
  format: 'md' | 'json',
  files: ExportedChatFile[] = [],
  name?: ModelNamer,
  grantedFolders: string[] = [],
): ExportSessionRes {
  switch (format) {
    case 'md':
      return {
        filename: exportFileName(session.title, 'md'),
        media_type: 'text/markdown',
        content: toMarkdown(session, chats.branch(session.id), files, name, grantedFolders),
      };
    case 'json': {
      // The stored row may carry the chat's folder grants: paths of this machine, never exported.
      const {
        message_count: _n,
        folder_grants: _g,
        ...meta
      } = session as ChatSession & {
        folder_grants?: unknown;
      };
      const doc = {
        skilldesk_chat_export: CHAT_EXPORT_VERSION,
        session: meta,
        usage: chats.usage(session.id),
        branch: chats.branch(session.id).map((m) => m.id),
        messages: chats.listMessages(session.id).map(({ seq: _s, skills: _k, ...m }) => m),
        files,
        ...(grantedFolders.length
          ? {
              granted_folders_not_exported: {
                names: grantedFolders,
                note: grantsNotExported(grantedFolders),
              },
            }
          : {}),
      };
      return {
        filename: exportFileName(session.title, 'json'),
        media_type: 'application/json',
        content: `${JSON.stringify(doc, null, 2)}\n`,
      };
    }
    default:
      return assertNever(format);
  }
}
