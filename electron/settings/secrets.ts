/**
 * Where API keys are kept in the main process. The desktop shell backs a {@link SecretStore} with
 * the OS keychain (Electron `safeStorage`); web mode and tests use a JSON file only the user can
 * read. Keys go in through `settings/set-key` and out only to the provider layer, never to a client.
 */
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../contract/errors.js';
import type { KeySourceName } from '../contract/settings.js';
import { envKeySource, isProviderId, type KeySource, PROVIDERS } from '../llm/index.js';
import { writeFileAtomic } from '../store/index.js';

/** A small keyed store of secrets, owned by the main process. */
export interface SecretStore {
  /** How the secrets are protected: the OS keychain, or a file readable only by the user. */
  readonly kind: 'keychain' | 'file';
  get(name: string): string | undefined;
  /** Store a secret; an empty value removes it. */
  set(name: string, value: string): void;
  /** Why stored secrets cannot be read (a broken file), with what to do; null when they can. */
  problem?(): string | null;
}

/** The file of {@link createFileSecretStore}. */
export const SECRETS_FILE = 'secrets.json';

interface SecretsJson {
  version: 1;
  keys: Record<string, string>;
}

function parseSecrets(text: string, file: string): Record<string, string> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AppError(
      'STORE_FAILED',
      `${file} is not valid JSON, so the keys stored there cannot be read; fix or delete it, or enter the keys again in Settings → Providers (the broken file is kept beside it).`,
      {
        file,
      },
    );
  }
  const keys = (json as Partial<SecretsJson> | null)?.keys;
  if (!keys || typeof keys !== 'object') return {};
  return Object.fromEntries(Object.entries(keys).filter(([, v]) => typeof v === 'string')) as Record<
    string,
    string
  >;
}

/**
 * Write `text` to `file` with mode 0600, atomically (a crash or a full disk never leaves half a
 * file, nor a temp file behind).
 */
export function writePrivateFile(file: string, text: string | Buffer): void {
  writeFileAtomic(file, text, { mode: 0o600 });
}

/**
 * Secrets in `<home>/secrets.json`, created with mode 0600 (readable only by the user). Used in
 * web mode, where no keychain is reachable; the desktop app uses the OS keychain instead.
 */
export function createFileSecretStore(home: string): SecretStore {
  const file = join(home, SECRETS_FILE);
  let cache: Record<string, string> | null = null;
  let problem: string | null = null;
  // A file that cannot be read is a problem only for the providers that need a key from it:
  // Settings still opens (to fix it) and a provider needing no key still works.
  const load = () => {
    if (cache) return cache;
    try {
      cache = existsSync(file) ? parseSecrets(readFileSync(file, 'utf8'), file) : {};
      problem = null;
    } catch (e) {
      problem = e instanceof AppError ? e.message : `${file} cannot be read: ${(e as Error).message}`;
      return {};
    }
    return cache;
  };
  return {
    kind: 'file',
    get: (name) => load()[name] || undefined,
    set(name, value) {
      const keys = { ...load() };
      if (problem && existsSync(file)) {
        // Saving a key replaces a file that could not be read: keep that one beside it, in case
        // it holds keys the user wants back by hand.
        renameSync(file, `${file}.unreadable-${Date.now()}`);
      }
      if (value) keys[name] = value;
      else delete keys[name];
      writePrivateFile(file, `${JSON.stringify({ version: 1, keys } satisfies SecretsJson, null, 2)}\n`);
      cache = keys;
      problem = null;
    },
    problem: () => {
      load();
      return problem;
    },
  };
}

/** Secrets held in memory only (tests). */
export function createMemorySecretStore(kind: SecretStore['kind'] = 'file'): SecretStore {
  const keys = new Map<string, string>();
  return {
    kind,
    get: (name) => keys.get(name),
    set: (name, value) => {
      if (value) keys.set(name, value);
      else keys.delete(name);
    },
  };
}

/** The key source of the app: stored secrets first, then the provider's environment variable. */
export function appKeySource(secrets: SecretStore, env: NodeJS.ProcessEnv): KeySource {
  const fromEnv = envKeySource(env);
  return {
    get: (name) => secrets.get(name) ?? fromEnv.get(name),
    hint: (name) => {
      const where = isProviderId(name)
        ? `add it in Settings → Providers, or set ${PROVIDERS[name].envVar}`
        : 'add it in Settings → Providers';
      const problem = secrets.problem?.();
      return problem ? `${where} (${problem})` : where;
    },
  };
}

/** Whether a provider has a key, and where it comes from (never the key itself). */
export function keyStatus(
  secrets: SecretStore,
  env: NodeJS.ProcessEnv,
  name: string,
): { has_key: boolean; source: KeySourceName | null } {
  if (secrets.get(name)) return { has_key: true, source: secrets.kind };
  if (envKeySource(env).get(name)) return { has_key: true, source: 'env' };
  return { has_key: false, source: null };
}
