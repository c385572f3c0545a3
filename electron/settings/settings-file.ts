/** `<home>/settings.json`: the app's choices (never secrets), validated on read. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import {
  ListingBudgetPercentSchema,
  PackageIndexUrlSchema,
  ProviderIdNameSchema,
  ProviderRefSchema,
} from '../contract/settings.js';
import { PROVIDERS } from '../llm/index.js';
import { writePrivateFile } from './secrets.js';

/** The settings file name under the account folder. */
export const SETTINGS_FILE = 'settings.json';

/** The single provider of settings files before several could be configured (version 1). */
export const ChatProviderSettingsSchema = z.object({
  provider: ProviderIdNameSchema,
  model: z.string().trim().min(1).max(200).optional(),
  base_url: z.string().trim().min(1).max(2000).optional(),
});

/** A provider's model list as its `/models` last gave it. */
export const ModelsCacheSchema = z.object({
  list: z.array(z.string().min(1).max(300)).max(5000),
  fetched_at: z.string().min(1).max(40),
});

/** One configured provider. Its key is in the secret store under `id`, never here. */
export const ProviderEntrySchema = z.object({
  id: ProviderRefSchema,
  kind: ProviderIdNameSchema,
  label: z.string().trim().min(1).max(80),
  model: z.string().trim().min(1).max(200).optional(),
  base_url: z.string().trim().min(1).max(2000).optional(),
  models: ModelsCacheSchema.optional(),
});

/** A configured provider as stored. */
export type ProviderEntry = z.infer<typeof ProviderEntrySchema>;

/** The Python sandbox's settings. */
export const SandboxSettingsSchema = z.object({
  /**
   * Run code where the OS cannot take the network away from the sandbox process (in-process
   * isolation only). The user's explicit choice; the settings screen shows it as a warning.
   */
  allow_in_process_isolation: z.boolean().default(false),
});

/** Where Install packages fetches skills' Python packages: PyPI unless the user set an index. */
export const PackagesSettingsSchema = z.object({ index_url: PackageIndexUrlSchema.optional() });

/** The whole settings file. Unknown keys are dropped on the next write. */
export const SettingsFileSchema = z
  .object({
    version: z.literal(2),
    providers: z.array(ProviderEntrySchema).max(100).default([]),
    /** The provider new chats (and chats without their own model) use. */
    default_provider: ProviderRefSchema.nullable().default(null),
    /** `auto` (also when absent): a new chat is named by its model after the first reply. */
    chat_titles: z.enum(['auto', 'off']).optional(),
    sandbox: SandboxSettingsSchema.default({ allow_in_process_isolation: false }),
    packages: PackagesSettingsSchema.optional(),
    /**
     * The skill listing's budget as a percentage of the chat model's context: when every enabled
     * skill's name and description fit it, all are listed and the model chooses (default 1).
     */
    listing_budget_percent: ListingBudgetPercentSchema.optional(),
  })
  .superRefine((s, ctx) => {
    const seen = new Set<string>();
    s.providers.forEach((p, i) => {
      if (seen.has(p.id))
        ctx.addIssue({ code: 'custom', path: ['providers', i, 'id'], message: `"${p.id}" is used twice` });
      seen.add(p.id);
    });
    if (s.default_provider !== null && !seen.has(s.default_provider))
      ctx.addIssue({
        code: 'custom',
        path: ['default_provider'],
        message: `no provider has the id "${s.default_provider}"`,
      });
  });

/** Settings as stored. */
export type SettingsFile = z.infer<typeof SettingsFileSchema>;

/** The settings file before several providers (version 1, or no version at all). */
const SettingsFileV1Schema = z.object({
  version: z.literal(1).optional(),
  chat: ChatProviderSettingsSchema.nullable().default(null),
  sandbox: SandboxSettingsSchema.default({ allow_in_process_isolation: false }),
});

/** A version-1 file (or one without a version) as the current shape. */
function fromV1(v1: z.infer<typeof SettingsFileV1Schema>): SettingsFile {
  const { chat, sandbox } = v1;
  return {
    version: 2,
    providers: chat
      ? [
          {
            id: chat.provider,
            kind: chat.provider,
            label: PROVIDERS[chat.provider].label,
            ...(chat.model ? { model: chat.model } : {}),
            ...(chat.base_url ? { base_url: chat.base_url } : {}),
          },
        ]
      : [],
    default_provider: chat ? chat.provider : null,
    sandbox,
  };
}

/**
 * Validate a parsed settings file of any version, bringing it to the current shape. A version-1
 * file's one provider becomes the one configured provider under its kind's id (so its key, stored
 * under that name, and chats pinned to it go on working) and the default; every field is kept.
 * The file itself is rewritten in the new shape only on the next change.
 */
export function parseSettingsFile(json: unknown) {
  const version = json && typeof json === 'object' ? (json as { version?: unknown }).version : undefined;
  return version === undefined || version === 1
    ? SettingsFileV1Schema.transform(fromV1).safeParse(json)
    : SettingsFileSchema.safeParse(json);
}

/** Settings before anything is chosen. */
export function defaultSettings(): SettingsFile {
  return {
    version: 2,
    providers: [],
    default_provider: null,
    sandbox: { allow_in_process_isolation: false },
  };
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
  const r = parseSettingsFile(json);
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

/** The package index the user set in Settings, or undefined (pip then uses PyPI). */
export function packageIndexUrl(home: string): string | undefined {
  return readSettings(home).settings.packages?.index_url;
}
