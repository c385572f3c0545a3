/**
 * The package being edited, in the shape the form edits it: lists as the text the user types,
 * artifact metadata as JSON text, a stable key per artifact. Pure functions only: converting to
 * and from the JSON package, the starting templates, and where a validation issue belongs.
 */
import { isTemplated } from '../../../electron/contract/kinds.js';
import type { ArtifactKindName, SkillDetail, ValidationIssue } from '../../../electron/contract/skills.js';

/** Where a package says it came from. */
export type DraftSource = '' | 'user' | 'community' | 'system';

/** One artifact as the editor holds it. */
export interface DraftArtifact {
  /** Stable across renames and reorders (React keys, per-artifact validation). */
  key: string;
  kind: ArtifactKindName;
  name: string;
  content: string;
  model_variant: string;
  /** The metadata object as JSON text ('' for none). */
  metadata: string;
  /** Fields the editor does not show (id, state_blob), kept so a save does not drop them. */
  extra: Record<string, unknown>;
}

/** A package as the editor holds it. */
export interface Draft {
  name: string;
  description: string;
  version: string;
  /** Comma-separated. */
  tags: string;
  source: DraftSource;
  author: string;
  /** One per line. */
  intent_patterns: string;
  /** One per line. */
  trigger_phrases: string;
  when: string;
  /** Comma-separated. */
  modalities: string;
  /** Comma-separated. */
  requires: string;
  always_on: boolean;
  license: string;
  compatibility: string;
  allowed_tools: string;
  artifacts: DraftArtifact[];
  /** Package fields the form does not show (id, metadata, marketplace ids), kept on save. */
  extra: Record<string, unknown>;
}

let keySeq = 0;
/** A fresh artifact key (unique within this page). */
export function newArtifactKey(): string {
  keySeq += 1;
  return `a${Date.now().toString(36)}${keySeq.toString(36)}`;
}

const commaList = (items: readonly string[] | undefined) => (items ?? []).join(', ');
const lineList = (items: readonly string[] | undefined) => (items ?? []).join('\n');
const splitComma = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
const splitLines = (s: string) =>
  s
    .split('\n')
    .map((x) => x.trim())
    .filter(Boolean);

/** An empty artifact of a kind. */
export function blankArtifact(kind: ArtifactKindName, name: string, content = ''): DraftArtifact {
  return { key: newArtifactKey(), kind, name, content, model_variant: '', metadata: '', extra: {} };
}

/** A draft of a stored skill. */
export function draftFromSkill(skill: SkillDetail): Draft {
  return {
    name: skill.name,
    description: skill.description,
    version: skill.version,
    tags: commaList(skill.tags),
    source: skill.source === 'system' ? 'system' : skill.source,
    author: skill.author ?? '',
    intent_patterns: lineList(skill.intent_patterns),
    trigger_phrases: lineList(skill.trigger_phrases),
    when: skill.when ?? '',
    modalities: commaList(skill.modalities),
    requires: commaList(skill.requires),
    always_on: skill.always_on,
    license: skill.license ?? '',
    compatibility: skill.compatibility ?? '',
    allowed_tools: skill.allowed_tools ?? '',
    artifacts: skill.artifacts.map((a) => ({
      key: newArtifactKey(),
      kind: a.kind,
      name: a.name,
      content: a.content,
      model_variant: a.model_variant ?? '',
      metadata: a.metadata ? JSON.stringify(a.metadata, null, 2) : '',
      extra: {},
    })),
    extra: { id: skill.id, ...(skill.metadata ? { metadata: skill.metadata } : {}) },
  };
}

/** The result of turning a draft into a package: local problems (bad metadata JSON) as issues. */
export type PackageResult = { pkg: Record<string, unknown>; issues: ValidationIssue[] };

/** The JSON package of a draft (empty optional fields left out). */
export function draftToPackage(d: Draft): PackageResult {
  const issues: ValidationIssue[] = [];
  const pkg: Record<string, unknown> = { ...d.extra, name: d.name, description: d.description };
  if (d.version.trim()) pkg.version = d.version.trim();
  const put = (key: string, value: string[] | string) => {
    if (Array.isArray(value) ? value.length > 0 : value.trim() !== '') pkg[key] = value;
  };
  put('tags', splitComma(d.tags));
  // The store sets `system` itself (seeding); a package may not claim it.
  if (d.source && d.source !== 'system') pkg.source = d.source;
  put('author', d.author);
  put('intent_patterns', splitLines(d.intent_patterns));
  put('trigger_phrases', splitLines(d.trigger_phrases));
  put('when', d.when);
  put('modalities', splitComma(d.modalities));
  put('requires', splitComma(d.requires));
  if (d.always_on) pkg.always_on = true;
  put('license', d.license);
  put('compatibility', d.compatibility);
  put('allowed_tools', d.allowed_tools);
  pkg.artifacts = d.artifacts.map((a, i) => {
    const out: Record<string, unknown> = {
      ...a.extra,
      kind: a.kind,
      name: a.name,
      ordinal: i,
      content: a.content,
    };
    if (a.model_variant.trim()) out.model_variant = a.model_variant.trim();
    if (a.metadata.trim()) {
      try {
        const parsed: unknown = JSON.parse(a.metadata);
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
          issues.push({ path: `artifacts[${i}].metadata`, message: 'must be a JSON object such as {}' });
        } else out.metadata = parsed;
      } catch (e) {
        issues.push({
          path: `artifacts[${i}].metadata`,
          message: `is not valid JSON (${(e as Error).message})`,
        });
      }
    }
    return out;
  });
  return { pkg, issues };
}

/** Whether two drafts hold the same package (artifact keys aside). */
export function sameDraft(a: Draft, b: Draft): boolean {
  const strip = (d: Draft) => ({ ...d, artifacts: d.artifacts.map(({ key: _key, ...rest }) => rest) });
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b));
}

/** The starting points of a new skill. */
export const TEMPLATES = ['blank', 'prompt', 'python', 'dspy', 'instructions'] as const;
/** A starting point of a new skill. */
export type TemplateId = (typeof TEMPLATES)[number];

/** How each starting point is offered. */
export const TEMPLATE_INFO: Record<TemplateId, { title: string; text: string }> = {
  blank: { title: 'Blank skill', text: 'A name, a description and one empty instructions artifact.' },
  prompt: { title: 'Prompt skill', text: 'A MiniJinja prompt template with a length check.' },
  python: { title: 'Python skill', text: 'Python run in the sandbox, its result checked by a JSON Schema.' },
  dspy: {
    title: 'DSPy skill',
    text: 'A DSPy program run by the sidecar, falling back to a prompt template without it.',
  },
  instructions: {
    title: 'Instructions only',
    text: 'Guidance injected into the chat when the skill is active.',
  },
};

function baseDraft(name: string, description: string, artifacts: DraftArtifact[]): Draft {
  return {
    name,
    description,
    version: '1.0.0',
    tags: '',
    source: 'user',
    author: '',
    intent_patterns: '',
    trigger_phrases: '',
    when: '',
    modalities: 'text',
    requires: '',
    always_on: false,
    license: '',
    compatibility: '',
    allowed_tools: '',
    artifacts,
    extra: {},
  };
}

/** A new skill from a starting point: every one is a valid package as created. */
export function draftFromTemplate(id: TemplateId, name: string): Draft {
  switch (id) {
    case 'blank':
      return baseDraft(name, 'Describe what this skill does and when it helps.', [
        blankArtifact('approach', 'Instructions', 'Explain how to approach the task, step by step.'),
      ]);
    case 'prompt': {
      const prompt = blankArtifact(
        'prompt_template',
        'Prompt',
        'Write a short, friendly reply about {{ topic }}.\n{% if tone %}Use a {{ tone }} tone.{% endif %}\n',
      );
      prompt.metadata = JSON.stringify(
        { assertions: [{ type: 'length', check: 'char_range', min: 1, max: 2000, severity: 'soft' }] },
        null,
        2,
      );
      return {
        ...baseDraft(name, 'Writes a short reply about a topic from a prompt template.', [prompt]),
        requires: 'llm',
        trigger_phrases: `use ${name.toLowerCase()}`,
      };
    }
    case 'python': {
      const code = blankArtifact(
        'code_template',
        'Count words',
        'import skilldesk\n\ntext = {{ text }}\nwords = text.split()\nskilldesk.submit({"words": len(words), "characters": len(text)})\n',
      );
      code.metadata = JSON.stringify(
        {
          timeout_ms: 10000,
          assertions: [
            {
              type: 'structural',
              check: 'json_schema',
              severity: 'hard',
              schema: { type: 'object', required: ['words', 'characters'] },
            },
          ],
        },
        null,
        2,
      );
      return {
        ...baseDraft(name, 'Counts the words and characters of a text with Python in the sandbox.', [code]),
        requires: 'python',
      };
    }
    case 'dspy': {
      const fallback = blankArtifact(
        'prompt_template',
        'Answer',
        'Answer the question in two or three sentences.\n\nQuestion: {{ question }}\n',
      );
      const program = blankArtifact(
        'dspy_module',
        'Program',
        JSON.stringify({ template_id: 'chain_of_thought', signature: 'question -> answer' }, null, 2),
      );
      program.metadata = JSON.stringify({ fallback_artifact: 'Answer' }, null, 2);
      return {
        ...baseDraft(name, 'Answers a question with a DSPy program, or its prompt template without DSPy.', [
          program,
          fallback,
        ]),
        requires: 'llm',
      };
    }
    case 'instructions':
      return baseDraft(name, 'Guidance the assistant follows while this skill is active.', [
        blankArtifact(
          'approach',
          'Guidance',
          '# How to help\n\n1. Restate the goal in one sentence.\n2. Answer plainly, then give one example.\n',
        ),
      ]);
  }
}

/** Where an issue path points in the editor: a package field, or a field of one artifact. */
export type IssueTarget =
  | { at: 'package'; field: string }
  | { at: 'artifact'; index: number; field: string }
  | { at: 'other' };

/** Place an issue path such as `tags[2]`, `artifacts[1].metadata.assertions[0].pattern`. */
export function issueTarget(path: string): IssueTarget {
  const art = /^artifacts\[(\d+)\](?:\.([a-z_]+))?/.exec(path);
  if (art) return { at: 'artifact', index: Number(art[1]), field: art[2] ?? 'artifact' };
  const field = /^([a-z_]+)/.exec(path)?.[1];
  if (field === 'artifacts') return { at: 'package', field: 'artifacts' };
  return field ? { at: 'package', field } : { at: 'other' };
}

/** The issues at one package field. */
export function fieldIssues(issues: readonly ValidationIssue[], field: string): ValidationIssue[] {
  return issues.filter((i) => {
    const t = issueTarget(i.path);
    return t.at === 'package' && t.field === field;
  });
}

/** The issues of one artifact (by its index), optionally of one of its fields. */
export function artifactIssues(
  issues: readonly ValidationIssue[],
  index: number,
  field?: string,
): ValidationIssue[] {
  return issues.filter((i) => {
    const t = issueTarget(i.path);
    return t.at === 'artifact' && t.index === index && (field === undefined || t.field === field);
  });
}

/**
 * The variables a template reads, best effort: names used in `{{ … }}` and `{% if/for/elif … %}`
 * that it does not set itself (loop variables, `set`). Used to prefill the test context.
 */
export function templateVariables(source: string): string[] {
  const found = new Set<string>();
  const local = new Set<string>([
    'loop',
    'true',
    'false',
    'none',
    'True',
    'False',
    'None',
    'not',
    'and',
    'or',
    'in',
    'is',
  ]);
  for (const m of source.matchAll(/\{%-?\s*for\s+([\w\s,]+?)\s+in\s/g)) {
    for (const v of m[1]!.split(',')) local.add(v.trim());
  }
  for (const m of source.matchAll(/\{%-?\s*set\s+(\w+)/g)) local.add(m[1]!);
  const blocks = [
    ...source.matchAll(/\{\{-?([\s\S]*?)-?\}\}/g),
    ...source.matchAll(/\{%-?\s*(?:if|elif|for\s+[\w\s,]+?\s+in)\s([\s\S]*?)-?%\}/g),
  ];
  for (const b of blocks) {
    // Strings and filter names are not variables.
    const expr = b[1]!.replace(/(["'])(?:\\.|(?!\1).)*\1/g, ' ').replace(/\|\s*\w+/g, ' ');
    for (const m of expr.matchAll(/(?<![.\w])([A-Za-z_]\w*)/g)) {
      if (!local.has(m[1]!)) found.add(m[1]!);
    }
  }
  return [...found];
}

/** Whether an artifact's content is a MiniJinja template (a code_template unless `template: false`). */
export function isTemplate(a: DraftArtifact): boolean {
  let metadata: { template?: unknown } | null = null;
  try {
    metadata = JSON.parse(a.metadata || '{}') as { template?: unknown };
  } catch {
    // Metadata being edited into shape: take the kind's default.
  }
  return isTemplated(a.kind, metadata);
}

/** A test context with an empty string for each variable, keeping values already given. */
export function contextFor(variables: readonly string[], previous: Record<string, unknown> = {}): string {
  const ctx: Record<string, unknown> = {};
  for (const v of variables) ctx[v] = v in previous ? previous[v] : '';
  for (const [k, v] of Object.entries(previous)) if (!(k in ctx)) ctx[k] = v;
  return JSON.stringify(ctx, null, 2);
}
