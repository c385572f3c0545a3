/**
 * Skill evals in the Agent Skills form (`evals/evals.json`, bundled with the skill as a resource so
 * it travels with an Agent Skills folder): output evals run the skill on a prompt and check it,
 * trigger evals check that a message does (or does not) activate the skill in phase 1.
 */
import { z } from 'zod';
import { AppError } from '../contract/errors.js';
import { EvalsFileSchema } from '../contract/evals.js';
import { BUNDLED_FILE_KIND } from '../contract/kinds.js';

export { EvalsFileSchema };

import type { Skill } from '../store/index.js';

/** Where a skill's evals live among its bundled files. */
export const EVALS_PATH = 'evals/evals.json';

/** A parsed evals file. */
export type EvalsFile = z.infer<typeof EvalsFileSchema>;
/** One eval. */
export type SkillEval = EvalsFile['evals'][number];

/** The bundled `evals/evals.json` of a skill, if it has one. */
function evalsArtifact(skill: Skill) {
  return skill.artifacts.find(
    (a) =>
      a.kind === BUNDLED_FILE_KIND &&
      (a.metadata?.path === EVALS_PATH || a.name === EVALS_PATH || a.name.toLowerCase() === 'evals.json'),
  );
}

/** The skill's evals, or a clear error when it has none or they do not parse. */
export function readSkillEvals(skill: Skill): EvalsFile {
  const artifact = evalsArtifact(skill);
  if (!artifact) {
    throw new AppError(
      'NOT_FOUND',
      `"${skill.name}" has no evals: add a resource artifact at ${EVALS_PATH} ({"evals": [{"id": 1, "prompt": …, "assertions": […]}]})`,
    );
  }
  const text = artifactText(artifact);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new AppError(
      'INVALID_INPUT',
      `${EVALS_PATH} of "${skill.name}" is not JSON: ${(e as Error).message}`,
    );
  }
  const r = EvalsFileSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new AppError(
      'INVALID_INPUT',
      `${EVALS_PATH} of "${skill.name}": ${i.path.join('.') || '(file)'}: ${i.message}`,
    );
  }
  return r.data;
}

/** The variables an output eval runs the skill with. */
export function evalContext(e: SkillEval): Record<string, unknown> {
  return e.context ?? { input: e.prompt, text: e.prompt, message: e.prompt, prompt: e.prompt };
}

/** Where a skill's trigger evals live in skill-creator's shape (a list of `{query, should_trigger}`). */
export const TRIGGER_EVALS_PATH = 'evals/trigger-evals.json';

const TriggerEvalsFileSchema = z
  .array(
    z
      .object({
        query: z.string().trim().min(1).max(10_000),
        should_trigger: z.boolean(),
      })
      .passthrough(),
  )
  .min(1)
  .max(1000);

/** One trigger eval, from either file. */
export interface TriggerEval {
  /** `q<N>` for the Nth entry of trigger-evals.json, the eval's own id for evals.json. */
  id: string;
  query: string;
  should_trigger: boolean;
  /** The file it came from. */
  source: typeof TRIGGER_EVALS_PATH | typeof EVALS_PATH;
}

function bundled(skill: Skill, path: string) {
  return skill.artifacts.find(
    (a) => a.kind === BUNDLED_FILE_KIND && (a.metadata?.path === path || a.name === path),
  );
}

function artifactText(a: Skill['artifacts'][number]): string {
  return a.metadata?.encoding === 'base64' ? Buffer.from(a.content, 'base64').toString('utf8') : a.content;
}

/**
 * A skill's trigger evals: skill-creator's `evals/trigger-evals.json` list and the entries of
 * `evals/evals.json` that carry `should_trigger`. Empty when it has neither; a file that does not
 * parse is an error naming it and the entry.
 */
export function readTriggerEvals(skill: Skill): TriggerEval[] {
  const out: TriggerEval[] = [];
  const list = bundled(skill, TRIGGER_EVALS_PATH);
  if (list) {
    let raw: unknown;
    try {
      raw = JSON.parse(artifactText(list));
    } catch (e) {
      throw new AppError(
        'INVALID_INPUT',
        `${TRIGGER_EVALS_PATH} of "${skill.name}" is not JSON: ${(e as Error).message}`,
      );
    }
    const r = TriggerEvalsFileSchema.safeParse(raw);
    if (!r.success) {
      const i = r.error.issues[0]!;
      throw new AppError(
        'INVALID_INPUT',
        `${TRIGGER_EVALS_PATH} of "${skill.name}": ${i.path.join('.') || '(file)'}: ${i.message} (expected a list of {"query": "…", "should_trigger": true|false})`,
      );
    }
    for (const [i, e] of r.data.entries()) {
      out.push({
        id: `q${i + 1}`,
        query: e.query,
        should_trigger: e.should_trigger,
        source: TRIGGER_EVALS_PATH,
      });
    }
  }
  if (evalsArtifact(skill)) {
    for (const e of readSkillEvals(skill).evals) {
      if (e.should_trigger === undefined) continue;
      out.push({ id: String(e.id), query: e.prompt, should_trigger: e.should_trigger, source: EVALS_PATH });
    }
  }
  return out;
}
