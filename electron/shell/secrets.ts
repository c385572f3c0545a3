/**
 * API keys on the desktop: one JSON map encrypted with Electron `safeStorage` (the OS keychain's
 * key: Keychain on macOS, DPAPI on Windows, libsecret/kwallet on Linux) in `<home>/secrets.enc`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { safeStorage } from 'electron';
import { AppError } from '../contract/errors.js';
import { type SecretStore, writePrivateFile } from '../settings/index.js';

/** The encrypted secrets file under the account folder. */
export const KEYCHAIN_SECRETS_FILE = 'secrets.enc';

/** A SecretStore backed by `safeStorage`. Call after the app is ready. */
export function createKeychainSecretStore(home: string): SecretStore {
  const file = join(home, KEYCHAIN_SECRETS_FILE);
  let cache: Record<string, string> | null = null;
  const load = (): Record<string, string> => {
    if (cache) return cache;
    if (!existsSync(file) || !safeStorage.isEncryptionAvailable()) {
      cache = {};
      return cache;
    }
    try {
      const parsed = JSON.parse(safeStorage.decryptString(readFileSync(file))) as { keys?: unknown };
      const keys = parsed.keys && typeof parsed.keys === 'object' ? parsed.keys : {};
      cache = Object.fromEntries(Object.entries(keys).filter(([, v]) => typeof v === 'string')) as Record<
        string,
        string
      >;
    } catch {
      // Encrypted by another OS account or keychain: unreadable here, so start empty.
      cache = {};
    }
    return cache;
  };
  return {
    kind: 'keychain',
    get: (name) => load()[name] || undefined,
    set(name, value) {
      if (!safeStorage.isEncryptionAvailable()) {
        throw new AppError(
          'STORE_FAILED',
          'The system keychain is not available, so the key was not saved. Set the provider’s environment variable instead.',
        );
      }
      const keys = { ...load() };
      if (value) keys[name] = value;
      else delete keys[name];
      writePrivateFile(file, safeStorage.encryptString(JSON.stringify({ version: 1, keys })));
      cache = keys;
    },
  };
}
