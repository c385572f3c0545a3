import { z } from 'zod';
import { BUNDLED_FILE_KIND } from '../contract/kinds.js';
import {
  ARTIFACT_KINDS,
  type ArtifactKindName,
  SKILL_SOURCES,
  type SkillSource,
} from '../contract/skills.js';
import { KINDS, stateRule } from '../kinds/index.js';
import { skillNameProblem } from '../store/index.js';
import { isRequirementsPath, parseRequirements } from './requirements.js';
import { collision, portablePathProblem, type TakenPaths } from './safe-path.js';

export { ARTIFACT_KINDS, SKILL_SOURCES, type SkillSource };
/** One artifact kind (defined in the contract). */
export type ArtifactKind = ArtifactKindName;

const CONTROL_CHARS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** The kinds that keep compiled state with an artifact (`KindModule.state`). */
const STATE_KINDS = ARTIFACT_KINDS.filter((k) => stateRule(k));
const VERSION = /^\d+(?:\.\d+){0,2}(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

const label = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine(
      (s) => !CONTROL_CHARS.test(s) && !s.includes('\n'),
      'must be a single line without control characters',
    );

const phraseList = (maxItems: number, maxLen: number) =>
  z.array(label(maxLen)).max(maxItems, `at most ${maxItems} entries`);

/** A JSON value (what metadata may hold). */
const jsonValue: z.ZodType<unknown> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(jsonValue),
    z.record(z.string(), jsonValue),
  ]),
);

/** One assertion in an artifact's `metadata.assertions` (checked after the artifact runs). */
export const AssertionSchema = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('structural'),
      check: z.literal('json_schema').default('json_schema'),
      schema: z.record(z.string(), jsonValue),
      severity: z.enum(['hard', 'soft']).default('hard'),
      description: z.string().max(500).optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('length'),
      check: z.literal('char_range').default('char_range'),
      min: z.number().int().nonnegative().optional(),
      max: z.number().int().positive().optional(),
      severity: z.enum(['hard', 'soft']).default('hard'),
      description: z.string().max(500).optional(),
    })
    .strict()
    .refine((a) => a.min !== undefined || a.max !== undefined, 'needs min or max')
    .refine((a) => a.min === undefined || a.max === undefined || a.min <= a.max, 'min must not exceed max'),
  z
    .object({
      type: z.literal('pattern'),
      check: z.enum(['regex_match', 'regex_no_match']).default('regex_match'),
      pattern: z
        .string()
        .min(1)
        .max(500)
        .refine((p) => {
          try {
            new RegExp(p, 'u');
            return true;
          } catch {
            return false;
          }
        }, 'is not a valid regular expression'),
      flags: z
        .string()
        .regex(/^[imsu]*$/, 'only the flags i, m, s, u are allowed')
        .optional(),
      severity: z.enum(['hard', 'soft']).default('hard'),
      description: z.string().max(500).optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('semantic'),
      check: z.literal('llm_eval').default('llm_eval'),
      prompt: z.string().min(1).max(4000),
      expected: z.string().min(1).max(100).default('yes'),
      severity: z.enum(['hard', 'soft']).default('soft'),
      description: z.string().max(500).optional(),
    })
    .strict(),
]);
export type Assertion = z.infer<typeof AssertionSchema>;

/** Artifact metadata: free-form JSON object, with the keys the app understands checked. */
const ArtifactMetadataSchema = z.record(z.string(), jsonValue).superRefine((m, ctx) => {
  if ('assertions' in m) {
    const r = z.array(AssertionSchema).max(50).safeParse(m.assertions);
    if (!r.success) {
      for (const issue of r.error.issues) {
        ctx.addIssue({ code: 'custom', message: issue.message, path: ['assertions', ...issue.path] });
      }
    }
  }
  if ('fallback_artifact' in m && typeof m.fallback_artifact !== 'string') {
    ctx.addIssue({
      code: 'custom',
      message: 'must be the name of a prompt_template artifact',
      path: ['fallback_artifact'],
    });
  }
  if ('template' in m && typeof m.template !== 'boolean') {
    ctx.addIssue({ code: 'custom', message: 'must be true or false', path: ['template'] });
  }
});

/** One artifact as it appears in a JSON package. */
export const ArtifactSchema = z
  .object({
    id: z.string().max(128).optional(),
    kind: z.enum(ARTIFACT_KINDS),
    name: z
      .string()
      .min(1, 'must not be empty')
      .max(200)
      .refine(
        (s) => !CONTROL_CHARS.test(s) && !s.includes('\n'),
        'must be a single line without control characters',
      ),
    ordinal: z.number().int().min(0).max(100_000).optional(),
    content: z.string(),
    model_variant: z.string().min(1).max(64).nullable().optional(),
    metadata: ArtifactMetadataSchema.nullable().optional(),
    state_blob: z
      .string()
      .refine(
        (s) => s.length > 0 && BASE64.test(s),
        'must be base64 (the JSON DSPy writes with save_program=False)',
      )
      .nullable()
      .optional(),
  })
  .strict()
  .superRefine((a, ctx) => {
    if (a.state_blob == null) return;
    const state = stateRule(a.kind);
    if (!state) {
      ctx.addIssue({
        code: 'custom',
        message: `only a ${STATE_KINDS.join(' or ')} artifact may carry a state_blob`,
        path: ['state_blob'],
      });
      return;
    }
    // A blob that is not base64 already has its issue (the field's own check).
    const problem = BASE64.test(a.state_blob) ? state.problem(a.state_blob) : null;
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['state_blob'] });
  });

/** A skill package: the JSON form that is imported, exported and shared. */
export const SkillPackageSchema = z
  .object({
    id: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'must be an id such as a UUID')
      .optional(),
    name: label(100).superRefine((name, ctx) => {
      const problem = skillNameProblem(name);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
    description: z.string().trim().min(1, 'must not be empty').max(2000, 'must be at most 2000 characters'),
    version: z.string().regex(VERSION, 'must be a version such as 1.0.0').default('1.0.0'),
    tags: phraseList(50, 64).optional(),
    source: z.enum(SKILL_SOURCES).optional(),
    author: label(200).optional(),
    intent_patterns: phraseList(100, 200).optional(),
    trigger_phrases: phraseList(100, 200).optional(),
    when: z.string().trim().min(1).max(1000).optional(),
    modalities: z
      .array(z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be a lowercase word such as text or image'))
      .max(10)
      .optional(),
    requires: z
      .array(
        z.string().regex(/^[a-z][a-z0-9_.:-]{0,63}$/, 'must be a lowercase capability such as python or llm'),
      )
      .max(20)
      .optional(),
    always_on: z.boolean().optional(),
    license: z.string().max(500).optional(),
    compatibility: z.string().max(500).optional(),
    metadata: z.record(z.string(), z.string().max(2000)).optional(),
    allowed_tools: z.string().max(2000).optional(),
    marketplace_id: z.string().max(200).optional(),
    sync_etag: z.string().max(200).optional(),
    artifacts: z.array(ArtifactSchema).min(1, 'a skill needs at least one artifact').max(500),
  })
  .strict()
  .superRefine((p, ctx) => {
    const seen = new Map<string, number>();
    p.artifacts.forEach((a, i) => {
      const key = `${a.name}\u0000${a.model_variant ?? ''}`;
      const first = seen.get(key);
      if (first !== undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `duplicates artifacts[${first}] (same name and model_variant)`,
          path: ['artifacts', i, 'name'],
        });
      } else seen.set(key, i);
    });
    // Bundled files (a `metadata.path`, or a resource's name) are written out on export: each must
    // be portable to every OS, and none may differ from another (or SKILL.md) only by case.
    const taken: TakenPaths = new Map();
    collision(taken, 'SKILL.md');
    p.artifacts.forEach((a, i) => {
      const declared = a.metadata?.path;
      const path = typeof declared === 'string' ? declared : a.kind === BUNDLED_FILE_KIND ? a.name : null;
      if (path === null) return;
      const problem = portablePathProblem(path) ?? collision(taken, path);
      if (problem) {
        ctx.addIssue({
          code: 'custom',
          message: `the file path "${path}" ${problem}`,
          path: ['artifacts', i, ...(typeof declared === 'string' ? ['metadata', 'path'] : ['name'])],
        });
      }
    });
    // A requirements.txt is what Install packages hands pip (after SkillDesk's own parse): a file
    // that parse refuses is refused at import, so a hostile one never gets in.
    p.artifacts.forEach((a, i) => {
      const path = a.metadata?.path;
      if (typeof path !== 'string' || !isRequirementsPath(path)) return;
      let text = a.content;
      if (a.metadata?.encoding === 'base64') {
        // Kept as binary (a NUL byte makes a file binary): read as text to say where and what.
        try {
          text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(a.content, 'base64'));
        } catch {
          ctx.addIssue({
            code: 'custom',
            message: `${path} is not UTF-8 text; a requirements.txt must be`,
            path: ['artifacts', i, 'content'],
          });
          return;
        }
      }
      try {
        parseRequirements(text, path);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message, path: ['artifacts', i, 'content'] });
      }
    });
    // Each kind's own checks (a dspy_module's content and fallback, …), at paths under the artifact.
    p.artifacts.forEach((a, i) => {
      for (const issue of KINDS[a.kind].validate(a, p))
        ctx.addIssue({ code: 'custom', message: issue.message, path: ['artifacts', i, ...issue.path] });
    });
  });

/** A validated package (defaults applied). */
export type SkillPackage = z.infer<typeof SkillPackageSchema>;
/** A validated artifact of a package. */
export type PackageArtifact = z.infer<typeof ArtifactSchema>;

/** Render a zod issue path the way users read it: `artifacts[2].kind`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out || '(package)';
}

/** One validation problem with its JSON path. */
export interface PackageIssue {
  path: string;
  message: string;
}

/** Validate untrusted JSON as a package; returns the package or the list of problems. */
export function validatePackage(
  raw: unknown,
): { ok: true; value: SkillPackage } | { ok: false; issues: PackageIssue[] } {
  const r = SkillPackageSchema.safeParse(raw);
  if (r.success) return { ok: true, value: r.data };
  return {
    ok: false,
    issues: r.error.issues.map((i) => ({ path: formatPath(i.path), message: issueMessage(i) })),
  };
}

function issueMessage(i: z.core.$ZodIssue): string {
  if (i.code === 'unrecognized_keys')
    return `unknown key${i.keys.length > 1 ? 's' : ''} ${i.keys.map((k) => `"${k}"`).join(', ')}`;
  if (i.code === 'invalid_value' && 'values' in i)
    return `must be one of ${i.values.map((v) => JSON.stringify(v)).join(', ')}`;
  if (i.code === 'invalid_type' && i.input === undefined) return 'is required';
  return i.message;
}
