import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { type LoopbackProvider, startLoopbackProvider } from '../llm/index.js';
import { tempDir } from './index.js';

/**
 * An Agent Skills folder in a temporary folder: a SKILL.md with `description`, and `triggers`
 * (when given) as `evals/trigger-evals.json`, skill-creator's list of `{query, should_trigger}`.
 */
export function triggerEvalSkill(name: string, description: string, triggers?: unknown): string {
  const dir = join(tempDir(), name);
  mkdirSync(join(dir, 'evals'), { recursive: true });
  writeFileSync(
    join(dir, 'SKILL.md'),
    `---\nname: ${name}\ndescription: ${description}\n---\n\nDo the work.\n`,
  );
  if (triggers !== undefined)
    writeFileSync(join(dir, 'evals', 'trigger-evals.json'), JSON.stringify(triggers));
  return dir;
}

/**
 * A PDF skill whose description misses merge and split requests, with nine trigger evals: every
 * third (index 2, 5, 8) is what the description loop holds out, in words none of the others use.
 */
export const NARROW_PDF = {
  name: 'pdf-tools',
  description: 'Fill PDF forms and extract text from PDF documents.',
  triggers: [
    { query: 'fill in the fields of this PDF form for me', should_trigger: true },
    { query: 'merge these two scanned contracts into one', should_trigger: true },
    { query: 'cut the signed agreement into separate sheets', should_trigger: true },
    { query: 'write me a haiku about the sea', should_trigger: false },
    { query: 'combine the pages of my invoices and merge them', should_trigger: true },
    { query: 'what is the capital of France', should_trigger: false },
    { query: 'extract the text from this PDF', should_trigger: true },
    { query: 'compute the average of this spreadsheet column', should_trigger: false },
    { query: 'join the quarterly reports into a single document', should_trigger: true },
  ],
  /** A proposal that fixes the misses in the words of the requests, so it holds up held out. */
  better: {
    description:
      'Fill PDF forms, merge and combine scanned pages and contracts into one file, split documents into single pages, and extract text from PDF documents.',
    trigger_phrases: ['merge scanned pages', 'split into single pages'],
  },
  /** Two skills beside it, as distractors. */
  others: [
    ['sea-poems', 'Write short poems and haiku about the sea, waves and sailing.'],
    ['spreadsheet-math', 'Compute totals, averages and pivots in Excel spreadsheets and CSV files.'],
  ] as const,
};

/** A loopback provider answering `turns` in order, closed when the test ends. */
export async function scriptedProvider(turns: unknown[]): Promise<LoopbackProvider> {
  const p = await startLoopbackProvider({ script: turns as never });
  onTestFinished(() => p.close());
  return p;
}
