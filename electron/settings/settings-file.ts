/** `<home>/settings.json`: the app's choices (never secrets), validated on read. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ProviderIdNameSchema } from '../contract/settings.js';
import { writePrivateFile } from './secrets.js';

/** The settings file name under the account folder. */
export const SETTINGS_FILE = 'settings.json';

/** The provider chat uses. */
export const ChatProviderSettingsSchema = z.object({
  provider: ProviderIdNameSchema,
  model: z.string().trim().min(1).max(200).optional(),
  base_url: z.string().trim().min(1).max(2000).optional(),
});

/** The Python sandbox's settings. */
export const SandboxSettingsSchema = z.object({
  /**
   * Run code where the OS cannot take the network away from the sandbox process (in-process
   * isolation only). The user's explicit choice; the settings screen shows it as a warning.
   */
  allow_in_process_isolation: z.boolean().default(false),
});

/** The whole settings file. Unknown keys are dropped on the next write. */
export const SettingsFileSchema = z.object({
  version: z.literal(1).default(1),
  chat: ChatProviderSettingsSchema.nullable().default(null),
  sandbox: SandboxSettingsSchema.default({ allow_in_process_isolation: false }),
});

/** Settings as stored. */
export type SettingsFile = z.infer<typeof SettingsFileSchema>;

/** Settings before anything is chosen. */
export function defaultSettings(): SettingsFile {
  return { version: 1, chat: null, sandbox: { allow_in_process_isolation: false } };
}

/**
 * Read the settings. A missing file gives the defaults; a corrupt or invalid one gives the
 * defaults and a warning saying what was wrong and what happens next (it is never a crash).
 */
export function readSettings(home: string): { settings: SettingsFile; warning: string | null; file: string } {
  const file = join(home, SETTINGS_FILE);
  if (!existsSync(file)) return { settings: defaultSettings(), warning: null, file };
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    return {
      settings: defaultSettings(),
      warning: `${file} could not be read (${(e as Error).message.slice(0, 200)}), so the defaults are in use. Choosing a provider below rewrites it.`,
      file,
    };
  }
  const r = SettingsFileSchema.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const path = issue.path.join('.') || '(file)';
    return {
      settings: defaultSettings(),
      warning: `${file} is not valid (${path}: ${issue.message}), so the defaults are in use. Choosing a provider below rewrites it.`,
      file,
    };
  }
  return { settings: r.data, warning: null, file };
}

/** Write the settings (atomically, mode 0600). */
export function writeSettings(home: string, settings: SettingsFile): void {
  writePrivateFile(join(home, SETTINGS_FILE), `${JSON.stringify(settings, null, 2)}\n`);
}

/**
 * Whether the user accepted in-process isolation for the sandbox: the settings file, or
 * `SKILLDESK_SANDBOX_ISOLATION=in-process` for the command line and scripts.
 */
export function allowsInProcessIsolation(home: string, env: NodeJS.ProcessEnv): boolean {
  if (env.SKILLDESK_SANDBOX_ISOLATION === 'in-process') return true;
  return readSettings(home).settings.sandbox.allow_in_process_isolation;
}
