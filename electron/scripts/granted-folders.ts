import { readdirSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, resolve, sep } from 'node:path';
import type { GrantedFolder } from '../contract/chat-files.js';
import { AppError } from '../contract/errors.js';
import type { Db } from '../store/index.js';

/**
 * Folders of this machine the user grants to a chat (or `mcp serve --folder`): each reaches the
 * chat's script and Python runs read-only under `inputs/<name>/`, as `run-script
 * --folder` does. A grant is a path on this machine: it is kept with the chat and never exported.
 */

/** System folders whose contents are the kernel's or devices, never a user's files. */
const SYSTEM_ROOTS = ['/proc', '/sys', '/dev'];

const inside = (p: string, root: string) =>
  p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);

const realOrSelf = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
};

/**
 * Check a folder the user asks to grant and return it as a grant (its real path, named by its
 * folder name). Refused with the reason (INVALID_INPUT / NOT_FOUND): a missing or unreadable path,
 * a file, the root folder, the home folder itself, a folder that holds or lies inside SkillDesk's
 * own data folder (its keys, stores and environments), and the kernel's `/proc`, `/sys`, `/dev`.
 */
export function checkGrantableFolder(path: string, opts: { home: string; userHome?: string }): GrantedFolder {
  if (!path.trim()) throw new AppError('INVALID_INPUT', 'give the path of a folder to grant');
  if (!path.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(path))
    throw new AppError('INVALID_INPUT', `${path}: give the folder's full path (it starts with /)`);
  let real: string;
  try {
    real = realpathSync(resolve(path));
  } catch {
    throw new AppError('NOT_FOUND', `${path}: no such folder`, { path });
  }
  if (!statSync(real).isDirectory())
    throw new AppError('INVALID_INPUT', `${path}: not a folder (attach a single file to the chat instead)`, {
      path,
    });
  const refuse = (why: string) =>
    new AppError(
      'INVALID_INPUT',
      `${path} cannot be granted: ${why}. Grant the folder that holds the files the scripts need.`,
      {
        path,
      },
    );
  if (real === '/' || /^[A-Za-z]:\\?$/.test(real)) throw refuse('it is the root of the file system');
  const userHome = realOrSelf(opts.userHome ?? homedir());
  if (real === userHome) throw refuse('it is your whole home folder');
  for (const root of SYSTEM_ROOTS)
    if (inside(real, root)) throw refuse(`${root} is the kernel's, not a folder of files`);
  const data = realOrSelf(opts.home);
  if (inside(real, data)) throw refuse("it lies inside SkillDesk's own data folder (its keys and stores)");
  if (inside(data, real)) throw refuse(`it holds SkillDesk's own data folder (${data})`);
  try {
    readdirSync(real);
  } catch (e) {
    throw new AppError(
      'INVALID_INPUT',
      `${path}: cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
      { path },
    );
  }
  return { name: basename(real), path: real };
}

/**
 * A chat's granted folders. A value the column cannot hold reads as none: a grant is never guessed.
 */
export function chatFolderGrants(db: Db, sessionId: string): GrantedFolder[] {
  const v = db.prepare('SELECT folder_grants FROM chat_sessions WHERE id = ?').pluck().get(sessionId);
  if (typeof v !== 'string') return [];
  try {
    const list = JSON.parse(v) as unknown;
    if (!Array.isArray(list)) return [];
    return list.filter(
      (g): g is GrantedFolder =>
        typeof g?.name === 'string' && typeof g?.path === 'string' && g.path.startsWith('/'),
    );
  } catch {
    return [];
  }
}

/** Replace a chat's granted folders (already checked); false when there is no such chat. */
export function setChatFolderGrants(db: Db, sessionId: string, grants: readonly GrantedFolder[]): boolean {
  return (
    db
      .prepare('UPDATE chat_sessions SET folder_grants = ? WHERE id = ?')
      .run(JSON.stringify(grants.map(({ name, path }) => ({ name, path }))), sessionId).changes > 0
  );
}

/**
 * Add a grant to a list: the same folder again changes nothing; another folder of the same name is
 * refused (the runs see each as `inputs/<name>/`).
 */
export function addGrant(list: readonly GrantedFolder[], grant: GrantedFolder): GrantedFolder[] {
  if (list.some((g) => g.path === grant.path)) return [...list];
  const clash = list.find((g) => g.name === grant.name);
  if (clash)
    throw new AppError(
      'CONFLICT',
      `${grant.path} and the granted ${clash.path} are both named ${grant.name}: runs see a granted folder as inputs/NAME, so revoke the other first or grant a folder of another name`,
      { name: grant.name },
    );
  return [...list, grant].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * A file on this machine a call names by path, given only when it lies inside a granted folder
 * (after links are resolved): anything else is refused naming the granted folders.
 */
export function fileInGrantedFolder(path: string, folders: readonly GrantedFolder[]): string {
  const refused = () =>
    new AppError(
      'FORBIDDEN',
      folders.length
        ? `${path} is outside the folders granted to this server or chat (${folders.map((f) => f.path).join(', ')}): only files inside them can be given by path`
        : `${path}: no folder is granted, so no file can be given by path (mcp serve --folder DIR grants one; in the app, "Grant a folder…" in the chat's files)`,
      { path },
    );
  if (!path.startsWith('/')) throw refused();
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    if (!folders.some((f) => inside(resolve(path), f.path))) throw refused();
    throw new AppError('NOT_FOUND', `${path}: no such file`, { path });
  }
  if (!folders.some((f) => inside(real, realOrSelf(f.path)))) throw refused();
  if (!statSync(real).isFile()) throw new AppError('INVALID_INPUT', `${path}: not a regular file`, { path });
  return real;
}
