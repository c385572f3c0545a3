/**
 * What every face may know about an artifact kind, in one table: its label and help text, the
 * language its content is written in, whether it runs, whether its content is a MiniJinja template,
 * its colours, and what a new one starts as in the Composer. Every list and map of kinds (the
 * executable kinds, kind → language, chips, CSS colours, the database's lookup table) is derived
 * from it. A kind's schemas, effects, Agent Skills mapping, validation and executor live in
 * `electron/kinds/<kind>/`, registered against this table (a kind missing there fails `tsc`).
 */

/** The language a kind's content is edited and highlighted in (`by-name`: a resource's file name says). */
export type KindLanguage = 'markdown' | 'jinja' | 'python' | 'json' | 'by-name';

/** The renderer-visible facts of one kind. */
export interface KindFacts {
  /** Short name on chips and menus. */
  label: string;
  /** What the kind does, for tooltips and screen readers. */
  help: string;
  language: KindLanguage;
  /** Runs (through the dispatcher) rather than being injected as text. */
  executable: boolean;
  /**
   * Whether the content is a MiniJinja template: `always`, `never`, or `unless-opted-out` (a
   * `code_template` whose metadata says `template: false`).
   */
  templated: 'always' | 'never' | 'unless-opted-out';
  /** The kind's colour on light and dark themes (chips, trace rows). */
  colour: { light: string; dark: string };
  /** The name a new artifact of this kind starts with in the Composer. */
  default_name: string;
  /**
   * What the skill index reads of it: the first `body_chars` characters of its content as the
   * skill's instructions text (0: none), and for the embedding the start of that text (`head`),
   * its file path (`path`) or nothing (null).
   */
  index: { body_chars: number; embed: 'head' | 'path' | null };
  /** False: every skill has one, so a catalog chip of it says nothing. */
  chip?: false;
}

/** Every artifact kind, in the order the design lists them. */
export const KIND_FACTS = {
  description: {
    label: 'Description',
    help: 'Describes the skill',
    language: 'markdown',
    executable: false,
    templated: 'never',
    colour: { light: '#6b7280', dark: '#9ca3af' },
    default_name: 'Overview',
    index: { body_chars: 1500, embed: 'head' },
    chip: false,
  },
  prompt_template: {
    label: 'Prompt',
    help: 'MiniJinja prompt template',
    language: 'jinja',
    executable: true,
    templated: 'always',
    colour: { light: '#5650e0', dark: '#9d99ff' },
    default_name: 'Prompt',
    index: { body_chars: 0, embed: null },
  },
  code_template: {
    label: 'Python',
    help: 'Python run in the sandbox',
    language: 'python',
    executable: true,
    templated: 'unless-opted-out',
    colour: { light: '#15803d', dark: '#4ade80' },
    default_name: 'Code',
    index: { body_chars: 0, embed: null },
  },
  dspy_module: {
    label: 'DSPy',
    help: 'DSPy program run by the sidecar',
    language: 'json',
    executable: true,
    templated: 'never',
    colour: { light: '#c2410c', dark: '#fb923c' },
    default_name: 'Program',
    index: { body_chars: 0, embed: null },
  },
  approach: {
    label: 'Approach',
    help: 'Instructions injected when the skill is active',
    language: 'markdown',
    executable: false,
    templated: 'never',
    colour: { light: '#0e7490', dark: '#22d3ee' },
    default_name: 'Instructions',
    index: { body_chars: 3000, embed: 'head' },
  },
  example: {
    label: 'Example',
    help: 'Worked example',
    language: 'markdown',
    executable: false,
    templated: 'never',
    colour: { light: '#be185d', dark: '#f472b6' },
    default_name: 'Example',
    index: { body_chars: 800, embed: null },
  },
  resource: {
    label: 'Resource',
    help: 'Bundled file read on demand',
    language: 'by-name',
    executable: false,
    templated: 'never',
    colour: { light: '#475569', dark: '#94a3b8' },
    default_name: 'notes.md',
    index: { body_chars: 0, embed: 'path' },
  },
  wasm_component: {
    label: 'Component',
    help: 'WebAssembly component run in the sandbox with only the host functions',
    language: 'by-name',
    executable: true,
    templated: 'never',
    colour: { light: '#7c3aed', dark: '#a78bfa' },
    default_name: 'component.wasm',
    index: { body_chars: 0, embed: null },
  },
  llm_agent: {
    label: 'LLM skill',
    help: 'The model runs the skill: this text is its system prompt, with the tools its metadata declares',
    language: 'markdown',
    executable: true,
    templated: 'never',
    colour: { light: '#b45309', dark: '#fbbf24' },
    default_name: 'SKILL.md',
    index: { body_chars: 0, embed: null },
  },
} as const satisfies Record<string, KindFacts>;

/** An artifact kind. */
export type ArtifactKindName = keyof typeof KIND_FACTS;

/**
 * The kind a package holds a skill's bundled files in (an Agent Skills folder's files, the evals
 * file), each with its folder path in `metadata.path`.
 */
export const BUNDLED_FILE_KIND = 'resource' satisfies ArtifactKindName;

/** Every artifact kind, in the table's order. */
export const ARTIFACT_KINDS = Object.keys(KIND_FACTS) as [ArtifactKindName, ...ArtifactKindName[]];

/** Whether `kind` is an artifact kind this build knows. */
export function isArtifactKind(kind: string): kind is ArtifactKindName {
  return Object.hasOwn(KIND_FACTS, kind);
}

/** Kinds that execute something (the rest inject text). */
export const EXECUTABLE_KINDS: readonly ArtifactKindName[] = ARTIFACT_KINDS.filter(
  (k) => KIND_FACTS[k].executable,
);

/** Whether an artifact's content is a MiniJinja template, from its kind and metadata. */
export function isTemplated(kind: ArtifactKindName, metadata: { template?: unknown } | null): boolean {
  const t = KIND_FACTS[kind].templated;
  return t === 'always' || (t === 'unless-opted-out' && metadata?.template !== false);
}

/** The language of an artifact's content, from its kind and (for `by-name` kinds) its file name. */
export function languageOfKind(kind: ArtifactKindName, name: string): Exclude<KindLanguage, 'by-name'> {
  const lang = KIND_FACTS[kind].language;
  if (lang !== 'by-name') return lang;
  if (/\.py$/i.test(name)) return 'python';
  if (/\.json$/i.test(name)) return 'json';
  return 'markdown';
}

/** A kind's colour as one CSS value that follows the theme (`light-dark()` reads `color-scheme`). */
export function kindColour(kind: ArtifactKindName): string {
  const c = KIND_FACTS[kind].colour;
  return `light-dark(${c.light}, ${c.dark})`;
}

/** How much of each kind's content the skill index reads as instructions text (kinds it reads at all). */
export const INDEXED_BODY_CHARS: Readonly<Partial<Record<ArtifactKindName, number>>> = Object.fromEntries(
  ARTIFACT_KINDS.filter((k) => KIND_FACTS[k].index.body_chars > 0).map((k) => [
    k,
    KIND_FACTS[k].index.body_chars,
  ]),
);

/** What the skill index's embedding reads of an artifact of `kind` (a kind this build does not know: nothing). */
export function indexedForEmbedding(kind: string): 'head' | 'path' | null {
  return isArtifactKind(kind) ? KIND_FACTS[kind].index.embed : null;
}
