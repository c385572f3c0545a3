/**
 * `skills optimize --evals`: a skill's output evals become the DSPy train and
 * validation split — the prompt (or the eval's context) as the signature's input, the expected
 * output as its output — and the validation evals are run before and after to show the gain.
 */
import { AppError } from '../contract/errors.js';
import type { EvalsFile } from '../skills/index.js';

/** The train and validation examples, and which evals the validation split holds. */
export interface EvalsSplit {
  input_field: string;
  output_field: string;
  train: Array<Record<string, string>>;
  validation: Array<Record<string, string>>;
  /** Ids of the evals in the validation split (run before and after). */
  validation_ids: string[];
}

/** The first input and output field of a DSPy signature (`claims, context -> contradictions`). */
export function signatureFields(signature: string | undefined): { input: string; output: string } {
  const sig = signature ?? 'input -> output';
  const [left, right] = sig.split('->');
  const first = (side: string | undefined) =>
    side
      ?.split(',')[0]
      ?.split(':')[0]
      ?.trim()
      .match(/^[A-Za-z_]\w*$/)?.[0];
  const input = first(left);
  const output = first(right);
  if (!input || !output) {
    throw new AppError('INVALID_INPUT', `the signature "${sig}" has no input and output field (a -> b)`);
  }
  return { input, output };
}

/**
 * Split the output evals that have an expected output: every third one validates, the rest
 * train; with fewer than three, all of them do both (too few to hold any out).
 */
export function evalsSplit(file: EvalsFile, signature: string | undefined): EvalsSplit {
  const { input, output } = signatureFields(signature);
  const usable = file.evals.filter(
    (e) => e.should_trigger === undefined && typeof e.expected_output === 'string' && e.expected_output,
  );
  if (usable.length < 2) {
    throw new AppError(
      'INVALID_INPUT',
      `optimizing with evals needs at least 2 output evals with an expected_output (found ${usable.length})`,
    );
  }
  const example = (e: (typeof usable)[number]) => {
    const from = e.context?.[input];
    return { [input]: typeof from === 'string' ? from : e.prompt, [output]: e.expected_output! };
  };
  const validation = usable.length >= 3 ? usable.filter((_, i) => i % 3 === 2) : usable;
  const train = usable.length >= 3 ? usable.filter((_, i) => i % 3 !== 2) : usable;
  return {
    input_field: input,
    output_field: output,
    train: train.map(example),
    validation: validation.map(example),
    validation_ids: validation.map((e) => String(e.id)),
  };
}

/** The next patch version: `1.2.3` → `1.2.4` (pre-release and build parts dropped). */
export function nextPatchVersion(version: string): string {
  const [core] = version.split(/[-+]/);
  const parts = (core ?? '1.0.0').split('.').map((n) => Number(n) || 0);
  while (parts.length < 3) parts.push(0);
  parts[2]! += 1;
  return parts.slice(0, 3).join('.');
}
