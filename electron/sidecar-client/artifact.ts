import { AppError } from '../contract/errors.js';
import { type DspyModuleContent, DspyModuleContentSchema, type OptimizeProgress } from './protocol.js';

/** Most rows a training file may hold (the sidecar accepts up to 1000). */
export const MAX_TRAINING_ROWS = 1000;

/**
 * Parse a `dspy_module` artifact's content (JSON naming the template and signature).
 * Throws `AppError('INVALID_INPUT')` naming `source`.
 */
export function parseDspyModuleContent(content: string, source = 'dspy_module content'): DspyModuleContent {
  let raw: unknown;
  try {
    raw = JSON.parse(content);
  } catch (e) {
    throw new AppError(
      'INVALID_INPUT',
      `${source} is not JSON: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  const parsed = DspyModuleContentSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AppError(
      'INVALID_INPUT',
      `${source}: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
      {
        issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
      },
    );
  }
  return parsed.data;
}

/**
 * Parse a JSON-lines training set (one object per line; blank lines and `#` comments skipped).
 * Throws `AppError('INVALID_INPUT')` naming the file and line.
 */
export function parseTrainingJsonl(text: string, source = 'training set'): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, line] of lines.entries()) {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#')) continue;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (e) {
      throw new AppError(
        'INVALID_INPUT',
        `${source}:${i + 1}: not JSON (${e instanceof Error ? e.message : e})`,
        {
          line: i + 1,
        },
      );
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new AppError('INVALID_INPUT', `${source}:${i + 1}: each line must be a JSON object`, {
        line: i + 1,
      });
    }
    rows.push(value as Record<string, unknown>);
    if (rows.length > MAX_TRAINING_ROWS) {
      throw new AppError('TOO_LARGE', `${source} has more than ${MAX_TRAINING_ROWS} examples`);
    }
  }
  if (rows.length === 0) throw new AppError('INVALID_INPUT', `${source} holds no examples`);
  return rows;
}

/** One human line for an optimization progress event, e.g. `compile  2/3 [######----]`. */
export function formatProgress(p: OptimizeProgress, width = 20): string {
  const ratio = p.total > 0 ? Math.min(1, p.done / p.total) : 1;
  const filled = Math.round(ratio * width);
  return `${p.phase.padEnd(8)} ${String(p.done).padStart(String(p.total).length)}/${p.total} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}
