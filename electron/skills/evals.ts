/**
 * Skill evals in the Agent Skills form (`evals/evals.json`, bundled with the skill as a resource so
 * it travels with an Agent Skills folder): output evals run the skill on a prompt and check it,
 * trigger evals check that a message does (or does not) activate the skill in phase 1.
 */
import { z } from 'zod';
import { AppError } from '../contract/errors.js';
import type { Skill } from '../store/index.js';

/** Where a skill's evals live among its bundled files. */
export const EVALS_PATH = 'evals/evals.json';

const EvalSchema = z
  .object({
    id: z.union([z.number(), z.string().max(200)]),
    name: z.string().max(500).optional(),
    prompt: z.string().min(1).max(100_000),
    expected_output: z.string().max(100_000).optional(),
    files: z.array(z.string().max(1000)).max(100).optional(),
    /** Statements about the output (judged by the model), or `{type: contains|not_contains, value}`. */
    assertions: z
      .array(
        z.union([
          z.string().min(1).max(2000),
          z
            .object({
              type: z.enum(['contains', 'not_contains']),
              value: z.string().max(10_000),
              name: z.string().max(200).optional(),
            })
            .passthrough(),
        ]),
      )
      .max(100)
      .optional(),
    /** skill-creator's checks: statements about the output, each graded by the judge model. */
    expectations: z.array(z.string().min(1).max(2000)).max(100).optional(),
    /** A trigger eval: whether this message should activate the skill (phase 1, top 5). */
    should_trigger: z.boolean().optional(),
    /** Variables for the skill's templates (default: the prompt as `input`, `text` and `message`). */
    context: z.record(z.string(), z.unknown()).optional(),
  })
  .passthrough();

/** An `evals/evals.json` file. */
export const EvalsFileSchema = z
  .object({
    skill_name: z.string().max(200).optional(),
    /** The pass rate below which `skills eval` fails (default 0.8). */
    threshold: z.number().min(0).max(1).optional(),
    evals: z.array(EvalSchema).min(1).max(1000),
  })
  .passthrough();

/** A parsed evals file. */
export type EvalsFile = z.infer<typeof EvalsFileSchema>;
/** One eval. */
export type SkillEval = EvalsFile['evals'][number];

/** The skill's evals, or a clear error when it has none or they do not parse. */
export function readSkillEvals(skill: Skill): EvalsFile {
  const artifact = skill.artifacts.find(
    (a) =>
      a.kind === 'resource' &&
      (a.metadata?.path === EVALS_PATH || a.name === EVALS_PATH || a.name.toLowerCase() === 'evals.json'),
  );
  if (!artifact) {
    throw new AppError(
      'NOT_FOUND',
      `"${skill.name}" has no evals: add a resource artifact at ${EVALS_PATH} ({"evals": [{"id": 1, "prompt": …, "assertions": […]}]})`,
    );
  }
  const text =
    artifact.metadata?.encoding === 'base64'
      ? Buffer.from(artifact.content, 'base64').toString('utf8')
      : artifact.content;
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
