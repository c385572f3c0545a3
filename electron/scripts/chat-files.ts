import { randomUUID } from 'node:crypto';
import {
  type Dirent,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, sep } from 'node:path';
import {
  type ChatFileView,
  chatFilePathProblem,
  MAX_CHAT_FILE_BYTES,
  MAX_CHAT_FILES,
  MAX_CHAT_FOLDER_BYTES,
} from '../contract/chat-files.js';
import { AppError } from '../contract/errors.js';
import { mediaTypeOf } from '../sandbox/index.js';

/** The folder of one chat: its attachments, the files its runs wrote, the files the user dropped in. */
export interface ChatFolder {
  readonly session_id: string;
  /** Where it is on disk (created on first write). */
  readonly dir: string;
  /** Every file, sorted by name (hidden and temporary files left out). */
  list(): ChatFileView[];
  /** One file's bytes; NOT_FOUND when it is not there. */
  read(name: string): { file: ChatFileView; bytes: Buffer };
  /**
   * Put a file in (a same name is replaced). Refuses, with TOO_LARGE, a file or folder past its
   * limits; with INVALID_INPUT, a name that could leave the folder or hide in it.
   */
  write(name: string, bytes: Uint8Array, opts?: { maxBytes?: number }): ChatFileView;
  /** Remove one file; false when it was not there. */
  remove(name: string): boolean;
  /** Remove the whole folder (the chat was deleted). */
  removeAll(): void;
}

const SESSION_ID = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * Where a store keeps its chats' folders: beside its `agents.db`, in a hidden folder for a
 * workspace (so the workspace's Markdown pages never pick up a run's `.md` output).
 */
export function chatFilesRoot(store: { scope: 'account' | 'workspace'; dir: string }): string {
  return store.scope === 'workspace'
    ? join(store.dir, '.skilldesk', 'chat-files')
    : join(store.dir, 'chat-files');
}

/** A file name checked against the folder's rules (see `chatFilePathProblem`); throws INVALID_INPUT. */
export function chatFileName(name: string): string {
  const why = chatFilePathProblem(name);
  if (why)
    throw new AppError(
      'INVALID_INPUT',
      `"${String(name).slice(0, 200)}" cannot name a file in a chat's folder: it ${why}`,
    );
  return name;
}

/**
 * A file name as the folder takes it from elsewhere (an attachment, a dropped file): its last part,
 * characters a name cannot have replaced, a leading dot dropped. Never empty.
 */
export function safeChatFileName(name: string, fallback = 'file'): string {
  const base = (String(name).split(/[\\/]/).at(-1) ?? '')
    .replace(/[\u0000-\u001f\u007f<>:"|?*]/g, '_')
    .replace(/^[.\s]+/, '')
    .replace(/[.\s]+$/, '')
    .slice(0, 200);
  return base || fallback;
}

/** The folder of chat `sessionId` under `root` (see {@link chatFilesRoot}). */
export function chatFolder(root: string, sessionId: string): ChatFolder {
  if (!SESSION_ID.test(sessionId))
    throw new AppError('INVALID_INPUT', `"${sessionId.slice(0, 100)}" is not a chat id`);
  const dir = join(root, sessionId);
  /** The file's path on disk, refusing one that resolves (through a link) outside the folder. */
  const pathOf = (name: string, mustExist: boolean): string => {
    const abs = join(dir, ...chatFileName(name).split('/'));
    if (mustExist) {
      let real: string;
      try {
        real = realpathSync(abs);
      } catch {
        throw new AppError('NOT_FOUND', `no file "${name}" in this chat's folder`, { name });
      }
      const base = realpathSync(dir);
      if (!real.startsWith(base + sep) || !lstatSync(abs).isFile())
        throw new AppError('NOT_FOUND', `no file "${name}" in this chat's folder`, { name });
    }
    return abs;
  };
  const view = (name: string, abs: string): ChatFileView => {
    const st = statSync(abs);
    return { name, size: st.size, media_type: mediaTypeOf(name), modified_at: st.mtime.toISOString() };
  };
  const list = (): ChatFileView[] => {
    const out: ChatFileView[] = [];
    const walk = (abs: string, rel: string, depth: number) => {
      let entries: Dirent[];
      try {
        entries = readdirSync(abs, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        if (e.name.startsWith('.')) continue;
        const r = rel ? `${rel}/${e.name}` : e.name;
        // Links are never followed: only what the folder itself holds is listed.
        if (e.isDirectory() && depth < 6) walk(join(abs, e.name), r, depth + 1);
        else if (e.isFile() && chatFilePathProblem(r) === null) out.push(view(r, join(abs, e.name)));
      }
    };
    walk(dir, '', 1);
    return out.sort((a, b) => a.name.localeCompare(b.name));
  };
  return {
    session_id: sessionId,
    dir,
    list,
    read(name) {
      const abs = pathOf(name, true);
      return { file: view(name, abs), bytes: readFileSync(abs) };
    },
    write(name, bytes, opts = {}) {
      const abs = pathOf(name, false);
      const max = Math.min(opts.maxBytes ?? MAX_CHAT_FILE_BYTES, MAX_CHAT_FOLDER_BYTES);
      if (bytes.byteLength > max)
        throw new AppError(
          'TOO_LARGE',
          `"${name}" is ${bytes.byteLength} bytes; a chat's file may be at most ${max}`,
          {
            limit: 'chat_file_bytes',
            max,
          },
        );
      const files = list();
      const existing = files.find((f) => f.name === name);
      const total = files.reduce((n, f) => n + f.size, 0) - (existing?.size ?? 0);
      if (!existing && files.length >= MAX_CHAT_FILES)
        throw new AppError(
          'TOO_LARGE',
          `this chat's folder already holds ${MAX_CHAT_FILES} files; delete some first`,
          {
            limit: 'chat_files',
            max: MAX_CHAT_FILES,
          },
        );
      if (total + bytes.byteLength > MAX_CHAT_FOLDER_BYTES)
        throw new AppError(
          'TOO_LARGE',
          `this chat's folder would hold more than ${MAX_CHAT_FOLDER_BYTES} bytes; delete some files first`,
          { limit: 'chat_folder_bytes', max: MAX_CHAT_FOLDER_BYTES },
        );
      mkdirSync(dirname(abs), { recursive: true });
      // A folder in the way (or a link planted there) is not written through.
      try {
        if (!lstatSync(abs).isFile())
          throw new AppError('CONFLICT', `"${name}" is a folder in this chat's folder`, { name });
      } catch (e) {
        if (e instanceof AppError) throw e;
      }
      const real = realpathSync(dirname(abs));
      if (real !== realpathSync(dir) && !real.startsWith(realpathSync(dir) + sep))
        throw new AppError('INVALID_INPUT', `"${name}" leads outside this chat's folder`);
      // Written whole or not at all: a reader never sees half a file.
      const tmp = join(dirname(abs), `.tmp-${randomUUID()}`);
      writeFileSync(tmp, bytes);
      renameSync(tmp, abs);
      return view(name, abs);
    },
    remove(name) {
      let abs: string;
      try {
        abs = pathOf(name, true);
      } catch (e) {
        if (e instanceof AppError && e.code === 'NOT_FOUND') return false;
        throw e;
      }
      rmSync(abs, { force: true });
      return true;
    },
    removeAll() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
