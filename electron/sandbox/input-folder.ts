import { type Dirent, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { AppError } from '../contract/errors.js';

/** Most files one folder given to a run may hold (either runtime). */
export const MAX_INPUT_FOLDER_FILES = 10_000;

/**
 * Largest total size of one folder given to a native run. The OS sandbox binds the folder (nothing
 * is copied), so the bound only keeps a mistaken grant (a whole disk) from being walked and shown.
 */
export const MAX_NATIVE_INPUT_FOLDER_BYTES = 8 * 1024 * 1024 * 1024;

/** One file of a folder given to a run. */
export interface InputFolderFile {
  /** Its path inside the folder, `/`-separated (`2024/q1.csv`). */
  rel: string;
  /** Its path on this machine. */
  path: string;
  size: number;
}

/** Bounds of {@link scanInputFolder}. */
export interface InputFolderLimits {
  files: number;
  bytes: number;
}

/**
 * The files of a folder the user gave a run, walked without following links out of it: hidden
 * files and folders are included (the native runtime binds the folder itself, and a bind cannot
 * hide entries, so both runtimes show the same tree); a link to a file inside the folder counts as
 * that file, other links, links to folders and special files (pipes, sockets, devices) are left
 * out, as are subfolders this user cannot read. Throws NOT_FOUND / INVALID_INPUT when `root` is not
 * a readable folder and TOO_LARGE naming the bound and what to do when it holds more than `limits`.
 */
export function scanInputFolder(
  root: string,
  limits: InputFolderLimits = { files: MAX_INPUT_FOLDER_FILES, bytes: Number.POSITIVE_INFINITY },
): { files: InputFolderFile[]; bytes: number } {
  let real: string;
  try {
    real = realpathSync(root);
  } catch {
    throw new AppError('NOT_FOUND', `input folder ${root} does not exist (or cannot be read)`, {
      folder: root,
    });
  }
  if (!statSync(real).isDirectory())
    throw new AppError('INVALID_INPUT', `input ${root} is not a folder`, { folder: root });
  const inside = (p: string) => p === real || p.startsWith(real.endsWith(sep) ? real : real + sep);
  const files: InputFolderFile[] = [];
  let bytes = 0;
  const add = (rel: string, path: string, size: number) => {
    if (files.length >= limits.files)
      throw new AppError(
        'TOO_LARGE',
        `folder ${root} holds more than ${limits.files} files, the most a run takes from one folder: give a smaller folder (a subfolder, or a new folder with only the files the script needs)`,
        { limit: 'script_input_folder_files', max: limits.files, folder: root },
      );
    bytes += size;
    if (bytes > limits.bytes)
      throw new AppError(
        'TOO_LARGE',
        `folder ${root} holds more than ${limits.bytes} bytes (at ${rel}), the most a run takes: give a smaller folder (a subfolder, or a new folder with only the files the script needs)`,
        { limit: 'script_input_bytes', max: limits.bytes, folder: root },
      );
    files.push({ rel, path, size });
  };
  const walk = (abs: string, rel: string, top: boolean) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch (e) {
      if (top)
        throw new AppError('NOT_FOUND', `input folder ${root} cannot be read (${(e as Error).message})`, {
          folder: root,
        });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const p = join(abs, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p, r, false);
      else if (e.isFile()) add(r, p, lstatSync(p).size);
      else if (e.isSymbolicLink()) {
        let target: string;
        try {
          target = realpathSync(p);
        } catch {
          continue;
        }
        if (!inside(target)) continue;
        const st = statSync(target);
        if (st.isFile()) add(r, target, st.size);
      }
    }
  };
  walk(real, '', true);
  return { files, bytes };
}
