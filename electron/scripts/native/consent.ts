import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../contract/errors.js';
import { writeFileAtomic } from '../../store/index.js';

/**
 * The user's acceptance of the OS-sandbox runtime, once per skill: like a network grant it is kept
 * by skill name in the account folder, shown with the skill's other grants and revocable.
 */

/** The file of the runtime acceptances. */
export const RUNTIME_GRANTS_FILE = 'skill-runtimes.json';

/** One skill's acceptance. */
export interface NativeConsent {
  accepted_at: string;
  /** The compiled packages the user was told about when accepting. */
  compiled: string[];
}

function read(home: string): Record<string, NativeConsent> {
  const file = join(home, RUNTIME_GRANTS_FILE);
  if (!existsSync(file)) return {};
  try {
    const json = JSON.parse(readFileSync(file, 'utf8')) as { skills?: Record<string, NativeConsent> };
    const out: Record<string, NativeConsent> = {};
    for (const [k, v] of Object.entries(json.skills ?? {}))
      if (v && typeof v.accepted_at === 'string')
        out[k] = {
          accepted_at: v.accepted_at,
          compiled: Array.isArray(v.compiled) ? v.compiled.map(String) : [],
        };
    return out;
  } catch {
    throw new AppError(
      'STORE_FAILED',
      `${file} is not valid JSON: fix or delete it (runtime acceptances are kept there)`,
      {
        file,
      },
    );
  }
}

function write(home: string, all: Record<string, NativeConsent>): void {
  writeFileAtomic(
    join(home, RUNTIME_GRANTS_FILE),
    `${JSON.stringify({ version: 1, skills: all }, null, 2)}\n`,
  );
}

/** The skill's acceptance of the native runtime, or null. */
export function nativeConsent(home: string, skill: string): NativeConsent | null {
  return read(home)[skill] ?? null;
}

/** Record that the user accepts the OS-sandbox runtime for the skill. */
export function acceptNativeRuntime(home: string, skill: string, compiled: string[]): NativeConsent {
  const all = read(home);
  const c = { accepted_at: new Date().toISOString(), compiled: [...compiled].sort() };
  all[skill] = c;
  write(home, all);
  return c;
}

/** Take the acceptance back; the skill's scripts then no longer run natively. True when there was one. */
export function revokeNativeRuntime(home: string, skill: string): boolean {
  const all = read(home);
  if (!all[skill]) return false;
  delete all[skill];
  write(home, all);
  return true;
}
