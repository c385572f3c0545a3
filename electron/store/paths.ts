import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The app's folder name under the OS app-data folder (matches Electron's userData for "SkillDesk"). */
export const APP_DIR_NAME = 'SkillDesk';

/**
 * The account data folder: `--home`, else `$SKILLDESK_HOME`, else the OS app-data folder
 * (`%APPDATA%\SkillDesk`, `~/Library/Application Support/SkillDesk`, `$XDG_CONFIG_HOME/SkillDesk`).
 */
export function resolveHome(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  platform = process.platform,
): string {
  if (flag) return resolve(flag);
  if (env.SKILLDESK_HOME) return resolve(env.SKILLDESK_HOME);
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), APP_DIR_NAME);
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', APP_DIR_NAME);
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), APP_DIR_NAME);
}

/** The `agents.db` file of a folder (account home or workspace). */
export function storeFile(dir: string): string {
  return join(dir, 'agents.db');
}
