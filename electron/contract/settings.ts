/**
 * The `settings/*` slice of the API contract: which provider and model chat uses, and API keys.
 * Keys only ever go in: no reply carries a key, only whether one is stored and where.
 */
import { z } from 'zod';

/** The provider ids, defined here once; the llm package imports them (`PROVIDER_IDS`). */
export const PROVIDER_ID_VALUES = [
  'anthropic',
  'openai',
  'google',
  'xai',
  'deepseek',
  'openai-compatible',
] as const;
/** A provider id. */
export type ProviderIdName = (typeof PROVIDER_ID_VALUES)[number];
/** Zod schema of a provider id. */
export const ProviderIdNameSchema = z.enum(PROVIDER_ID_VALUES);

/** Where a provider's key comes from. */
export type KeySourceName = 'keychain' | 'file' | 'env';

/** `settings/get` takes no arguments. */
export const GetSettingsReqSchema = z.object({}).strict();
/** Request of `settings/get`. */
export type GetSettingsReq = z.infer<typeof GetSettingsReqSchema>;

/** One provider as the settings screen shows it. */
export interface ProviderView {
  id: ProviderIdName;
  label: string;
  default_model: string;
  /** Null when the provider needs one (openai-compatible). */
  default_base_url: string | null;
  requires_key: boolean;
  /** The environment variable read as a fallback. */
  env_var: string;
  has_key: boolean;
  source: KeySourceName | null;
}

/** The chosen provider (null: none, chat replies say so). */
export interface ProviderChoice {
  provider: ProviderIdName;
  /** Null: the provider's default model. */
  model: string | null;
  base_url: string | null;
}

/** How the operating system confines the Python sandbox here, and the user's choice about it. */
export interface SandboxSettingsView {
  /** `bwrap`, `unshare` (Linux), `sandbox-exec` (macOS) or `none` (in-process isolation only). */
  method: 'bwrap' | 'unshare' | 'sandbox-exec' | 'none';
  blocks_tcp: boolean;
  blocks_unix: boolean;
  /** In words. */
  detail: string;
  /** The user accepted running code with in-process isolation only (where `method` is `none`). */
  allow_in_process_isolation: boolean;
}

/** Reply of `settings/get`. */
export interface GetSettingsRes {
  /** The Python sandbox's isolation on this machine. */
  sandbox: SandboxSettingsView;
  chat: ProviderChoice | null;
  providers: ProviderView[];
  /** Where keys entered here are kept. */
  key_storage: 'keychain' | 'file';
  /** Set when the settings file could not be read (defaults are in use); says what happened. */
  warning: string | null;
  /** The settings file. */
  file: string;
}

/** `settings/set-provider`: choose the chat provider, model and base URL. */
export const SetProviderReqSchema = z
  .object({
    provider: ProviderIdNameSchema,
    model: z.string().trim().max(200).optional(),
    base_url: z.string().trim().max(2000).optional(),
  })
  .strict();
/** Request of `settings/set-provider` (empty strings mean the default). */
export type SetProviderReq = z.infer<typeof SetProviderReqSchema>;

/** `settings/set-key`: store (or, with an empty key, remove) a provider's API key. */
export const SetKeyReqSchema = z
  .object({
    provider: ProviderIdNameSchema,
    key: z
      .string()
      .max(4000, 'must be at most 4000 characters')
      .refine((k) => !/[\r\n]/.test(k), 'must be one line'),
  })
  .strict();
/** Request of `settings/set-key`. */
export type SetKeyReq = z.infer<typeof SetKeyReqSchema>;
/** Reply of `settings/set-key`: the provider's key status, never the key. */
export interface SetKeyRes {
  provider: ProviderView;
}

/** `settings/test-connection`: a one-token call with the chosen provider (or the one given). */
export const TestConnectionReqSchema = z
  .object({
    provider: ProviderIdNameSchema.optional(),
    model: z.string().trim().max(200).optional(),
    base_url: z.string().trim().max(2000).optional(),
  })
  .strict();
/** Request of `settings/test-connection`. */
export type TestConnectionReq = z.infer<typeof TestConnectionReqSchema>;
/** Reply of `settings/test-connection`: the outcome is data, a failure is not an error. */
export interface TestConnectionRes {
  ok: boolean;
  provider: ProviderIdName | null;
  model: string | null;
  took_ms: number;
  /** What the model said (trimmed), on success. */
  reply: string | null;
  error: { code: string; message: string } | null;
}

/** `settings/set-sandbox`: accept (or stop accepting) in-process isolation for the sandbox. */
export const SetSandboxReqSchema = z.object({ allow_in_process_isolation: z.boolean() }).strict();
/** Request of `settings/set-sandbox`. */
export type SetSandboxReq = z.infer<typeof SetSandboxReqSchema>;

// ---- a provider's models, for choosing one per chat ----
/** `settings/list-models`: the models a provider offers (its `/models`, else a known list). */
export const ListModelsReqSchema = z.object({ provider: ProviderIdNameSchema }).strict();
/** Request of `settings/list-models`. */
export type ListModelsReq = z.infer<typeof ListModelsReqSchema>;
/** Reply of `settings/list-models`. */
export interface ListModelsRes {
  provider: ProviderIdName;
  models: string[];
  /** `provider`: its `/models` answered; `known`: SkillDesk's list (`warning` says why). */
  source: 'provider' | 'known';
  warning: string | null;
}

/** The `settings/*` channels. */
export interface SettingsChannels {
  'settings/set-sandbox': { req: SetSandboxReq; res: GetSettingsRes };
  'settings/get': { req: GetSettingsReq; res: GetSettingsRes };
  'settings/set-provider': { req: SetProviderReq; res: GetSettingsRes };
  'settings/set-key': { req: SetKeyReq; res: SetKeyRes };
  'settings/test-connection': { req: TestConnectionReq; res: TestConnectionRes };
  'settings/list-models': { req: ListModelsReq; res: ListModelsRes };
}

/** Request schemas of the `settings/*` channels. */
export const settingsRequestSchemas = {
  'settings/set-sandbox': SetSandboxReqSchema,
  'settings/get': GetSettingsReqSchema,
  'settings/set-provider': SetProviderReqSchema,
  'settings/set-key': SetKeyReqSchema,
  'settings/test-connection': TestConnectionReqSchema,
  'settings/list-models': ListModelsReqSchema,
};

/** The `settings/*` events. */
export interface SettingsEvents {
  /** The provider choice or a key status changed. */
  'settings/changed': { what: 'provider' | 'key' | 'sandbox' };
}
