import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { AppError } from '../contract/errors.js';
import { openStore, resolveHome, storeWaitFromEnv } from '../store/index.js';
import { SkillCatalog } from './catalog.js';
import { seedAccountStore } from './seed.js';

/** Where the stores live, as the CLI and host resolve it. */
export interface CatalogLocation {
  home?: string;
  workspace?: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Open the account store (creating and seeding it) and, when a workspace folder is given, its
 * store. With `createWorkspace: false` a workspace without `agents.db` is treated as empty and no
 * file is created.
 */
export function openCatalog(loc: CatalogLocation, opts: { createWorkspace?: boolean } = {}): SkillCatalog {
  const home = resolveHome(loc.home, loc.env);
  let wsDir: string | undefined;
  if (loc.workspace) {
    wsDir = resolve(loc.workspace);
    if (!existsSync(wsDir) || !statSync(wsDir).isDirectory()) {
      throw new AppError('USAGE', `--workspace ${loc.workspace}: no such folder`, { dir: wsDir });
    }
  }
  const waitMs = storeWaitFromEnv(loc.env);
  const account = openStore('account', home, { waitMs })!;
  try {
    seedAccountStore(account);
    const workspace = wsDir
      ? openStore('workspace', wsDir, { create: opts.createWorkspace ?? false, waitMs })
      : null;
    return new SkillCatalog(account, workspace);
  } catch (e) {
    account.close();
    throw e;
  }
}
