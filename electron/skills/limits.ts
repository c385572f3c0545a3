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

/**
 * Limits from the environment (`SKILLDESK_MAX_IMPORT_BYTES`, `SKILLDESK_MAX_IMPORT_FILES`) and the
 * command line (`--max-size`, `--max-files`, which win).
 */
export function limitsFrom(env: NodeJS.ProcessEnv, maxBytes?: number, maxFiles?: number): ImportLimits {
  const positive = (v: string | undefined) => {
    const n = Number(v);
    return Number.isFinite(n) && n > 0 ? n : undefined;
  };
  return {
    ...DEFAULT_LIMITS,
    maxBytes: maxBytes ?? positive(env.SKILLDESK_MAX_IMPORT_BYTES) ?? DEFAULT_LIMITS.maxBytes,
    maxFiles: maxFiles ?? positive(env.SKILLDESK_MAX_IMPORT_FILES) ?? DEFAULT_LIMITS.maxFiles,
  };
}

/** What to do when a package is over the size limit. */
export const SIZE_REMEDY = 'pass --max-size BYTES (or set SKILLDESK_MAX_IMPORT_BYTES) to allow more';
/** What to do when a package has more files than allowed. */
export const FILES_REMEDY = 'pass --max-files N (or set SKILLDESK_MAX_IMPORT_FILES) to allow more';

/** Human size, e.g. 10 MiB. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / 1024 / 1024) * 10) / 10} MiB`;
  if (n >= 1024) return `${Math.round((n / 1024) * 10) / 10} KiB`;
  return `${n} bytes`;
}
