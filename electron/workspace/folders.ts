/** Folder paths typed by the user: checked before a folder becomes the workspace, and completed. */
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { AppError } from '../contract/errors.js';

/** `~` and `~/x` expanded to the user's home folder. */
export function expandHome(p: string, home = homedir()): string {
  if (p === '~') return home;
  if (p.startsWith(`~${sep}`) || p.startsWith('~/')) return join(home, p.slice(2));
  return p;
}

/**
 * The absolute folder a typed path names, checked: it exists, is a folder, and can be written
 * (the workspace store is created in it). Throws AppError saying what to do otherwise.
 */
export function checkWorkspaceFolder(typed: string): string {
  const expanded = expandHome(typed.trim());
  if (!isAbsolute(expanded))
    throw new AppError('INVALID_INPUT', `"${typed}" is not a full path. Type one starting with / or ~.`, {
      path: typed,
    });
  const path = resolve(expanded);
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(path);
  } catch {
    throw new AppError(
      'NOT_FOUND',
      `There is no folder at ${path}. Check the path, or create the folder first.`,
      {
        path,
      },
    );
  }
  if (!st.isDirectory())
    throw new AppError('INVALID_INPUT', `${path} is a file, not a folder. Pick the folder that holds it.`, {
      path,
    });
  try {
    accessSync(path, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch {
    throw new AppError(
      'FORBIDDEN',
      `SkillDesk cannot write to ${path}, so it cannot keep the workspace's skills and chats there. Pick a folder you own.`,
      { path },
    );
  }
  return path;
}

/**
 * Folders completing a typed prefix: the entries of the prefix's parent folder whose names start
 * with its last part (hidden ones only when that part starts with a dot), at most `limit`.
 */
export function completeFolder(prefix: string, limit = 50): Array<{ path: string; name: string }> {
  const typed = expandHome(prefix.trim() === '' ? '~/' : prefix.trim());
  if (!isAbsolute(typed)) return [];
  const endsWithSep = typed.endsWith('/') || typed.endsWith(sep);
  const parent = endsWithSep ? typed : dirname(typed);
  const part = endsWithSep ? '' : basename(typed);
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(parent, { withFileTypes: true });
  } catch {
    return [];
  }
  const lower = part.toLowerCase();
  return entries
    .filter((e) => {
      if (!e.isDirectory()) return false;
      if (e.name.startsWith('.') && !part.startsWith('.')) return false;
      return e.name.toLowerCase().startsWith(lower);
    })
    .map((e) => e.name)
    .sort((a, b) => a.localeCompare(b))
    .slice(0, limit)
    .map((name) => ({ name, path: join(resolve(parent), name) }));
}
