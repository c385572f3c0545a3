import { hash } from 'node:crypto';

/** The fields of a skill its e5 text is made of. */
export interface DenseTextFields {
  name: string;
  description: string;
  when_to_use: string | null;
  tags: string | null;
  intent_patterns: string | null;
  trigger_phrases: string | null;
}

const list = (json: string | null): string[] => {
  if (!json) return [];
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
};

/**
 * The text a skill's e5 vector is computed from: name, description, "when", tags, intent patterns
 * and trigger phrases (the body made retrieval worse on the harness).
 */
export function denseText(row: DenseTextFields): string {
  return [
    `${row.name.replace(/[._-]+/g, ' ')}.`,
    row.description,
    row.when_to_use ?? '',
    list(row.tags).join(', '),
    list(row.intent_patterns).join('; '),
    list(row.trigger_phrases).join('; '),
  ]
    .filter(Boolean)
    .join('\n');
}

/**
 * The hash a skill's saved vector is keyed by (with the model's id). The one-shot `hash` is about
 * 4× cheaper than a `createHash` object per text: a cold start hashes every skill's text.
 */
export const denseTextHash = (text: string) => hash('sha1', text, 'hex');
