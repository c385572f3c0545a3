/** Recently opened workspaces, remembered in `<home>/recent-workspaces.json`. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import type { RecentWorkspace } from '../contract/workspace.js';
import { writeFileAtomic } from '../store/index.js';

const MAX_RECENT = 10;

const RecentFileSchema = z.object({
  items: z.array(z.object({ path: z.string().min(1), opened_at: z.string() })).max(100),
});

/** The recent list of one account home. */
export interface RecentWorkspaces {
  list(): RecentWorkspace[];
  /** Put a folder first (it was just opened). */
  touch(path: string): RecentWorkspace[];
  forget(path: string): RecentWorkspace[];
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Open the recent list. A missing file is an empty list; a damaged one is reported through
 * `onWarning` and replaced on the next write (losing only the list, never a workspace).
 */
export function openRecentWorkspaces(
  home: string,
  opts: { now?: () => Date; onWarning?: (m: string) => void } = {},
): RecentWorkspaces {
  const file = join(home, 'recent-workspaces.json');
  const now = opts.now ?? (() => new Date());
  const read = (): Array<{ path: string; opened_at: string }> => {
    if (!existsSync(file)) return [];
    try {
      return RecentFileSchema.parse(JSON.parse(readFileSync(file, 'utf8'))).items;
    } catch (e) {
      opts.onWarning?.(`${file} is not a valid recent-workspaces file (${String(e)}); starting a new list`);
      return [];
    }
  };
  const write = (items: Array<{ path: string; opened_at: string }>) => {
    writeFileAtomic(file, `${JSON.stringify({ items }, null, 2)}\n`);
  };
  const view = (items: Array<{ path: string; opened_at: string }>): RecentWorkspace[] =>
    items.map((i) => ({
      path: i.path,
      name: basename(i.path) || i.path,
      opened_at: i.opened_at,
      exists: isDir(i.path),
    }));
  return {
    list: () => view(read()),
    touch(path) {
      const items = [
        { path, opened_at: now().toISOString() },
        ...read().filter((i) => i.path !== path),
      ].slice(0, MAX_RECENT);
      write(items);
      return view(items);
    },
    forget(path) {
      const items = read().filter((i) => i.path !== path);
      write(items);
      return view(items);
    },
  };
}
