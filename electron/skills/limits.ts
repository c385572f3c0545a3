/** Bounds on what an import may read, so a hostile package cannot exhaust memory or disk. */
export interface ImportLimits {
  /** Largest package in bytes (a JSON file, or the sum of a folder's or zip's files). */
  maxBytes: number;
  /** Most files in one folder or zip. */
  maxFiles: number;
  /** Largest uncompressed/compressed ratio accepted for a zip entry over 1 MiB. */
  maxRatio: number;
}

/**
 * Default bounds; `SKILLDESK_MAX_IMPORT_BYTES` or `--max-size` raise or lower the size cap. The size
 * cap leaves room for a WebAssembly component built from JavaScript (~12 MB, 16 MB as base64).
 */
export const DEFAULT_LIMITS: ImportLimits = { maxBytes: 32 * 1024 * 1024, maxFiles: 500, maxRatio: 100 };

/** Limits from the environment (and an optional explicit size). */
export function limitsFrom(env: NodeJS.ProcessEnv, maxBytes?: number): ImportLimits {
  const fromEnv = Number(env.SKILLDESK_MAX_IMPORT_BYTES);
  const size = maxBytes ?? (Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_LIMITS.maxBytes);
  return { ...DEFAULT_LIMITS, maxBytes: size };
}

/** Human size, e.g. 10 MiB. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / 1024 / 1024) * 10) / 10} MiB`;
  if (n >= 1024) return `${Math.round((n / 1024) * 10) / 10} KiB`;
  return `${n} bytes`;
}
