/**
 * The rules of `skills-ref validate` (the Agent Skills reference validator, PyPI `skills-ref`),
 * applied to a SKILL.md as that validator reads it, so an import warns about exactly what it would
 * reject. SkillDesk's own reader is more lenient (it takes flow-style lists, a BOM, CRLF frontmatter
 * fences), which is why these are checked on the file's text and not on the parsed package.
 *
 * What the validator does, and what is mirrored here:
 * - reads the file as UTF-8 text with universal newlines (CRLF and CR become LF; a BOM stays);
 * - the text must start with `---`; the frontmatter runs to the next `---` anywhere in the text;
 * - the frontmatter is parsed by strictyaml: no flow-style lists or maps (`[a]`, `{a: b}`), no
 *   anchors, aliases or tags, no duplicate keys; every scalar is a string; it must be a mapping;
 * - only `name`, `description`, `license`, `allowed-tools`, `metadata`, `compatibility`;
 * - `name`: a non-empty string, after NFKC at most 64 characters, lowercase, letters (any script),
 *   digits and hyphens, no hyphen at either end, no `--`, equal to its folder's name (NFKC);
 * - `description`: a non-empty string of at most 1,024 characters;
 * - `compatibility`: a string of at most 500 characters.
 */
import YAML, { isAlias, isCollection, isMap, isScalar } from 'yaml';
import type { PackageIssue } from './package-schema.js';

/** Frontmatter keys the reference validator accepts; it rejects any other. */
export const SKILLS_REF_KEYS = [
  'name',
  'description',
  'license',
  'allowed-tools',
  'metadata',
  'compatibility',
];
const MAX_NAME = 64;
const MAX_DESCRIPTION = 1024;
const MAX_COMPATIBILITY = 500;

/** Python's `len`: code points, not UTF-16 units. */
const pyLen = (s: string) => [...s].length;

/** Why strictyaml would refuse the frontmatter, or null when it parses; also its data. */
function strictYaml(src: string): { problem: string | null; data: unknown } {
  const doc = YAML.parseDocument(src, { schema: 'failsafe', uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const what =
      e.code === 'DUPLICATE_KEY' ? 'a key appears twice' : e.message.split('\n')[0]!.replace(/:$/, '');
    return { problem: `the frontmatter is not strict YAML (${what})`, data: null };
  }
  let problem: string | null = null;
  YAML.visit(doc, {
    Node(_key, node) {
      if (problem) return YAML.visit.BREAK;
      if (isAlias(node)) problem = `uses the alias *${node.source}; strict YAML has no anchors or aliases`;
      else if (isCollection(node) && node.flow) {
        const line = lineOf(src, node.range?.[0]);
        problem = `has a flow-style ${isMap(node) ? 'map ({…})' : 'list ([…])'}${line}; write it in block style (one "- item" per line)`;
      } else if ((isScalar(node) || isCollection(node)) && node.anchor)
        problem = `sets the anchor &${node.anchor}; strict YAML has no anchors or aliases`;
      else if ((isScalar(node) || isCollection(node)) && node.tag && hasExplicitTag(src, node.range?.[0]))
        problem = `has the tag ${node.tag}; strict YAML takes no tags`;
      return undefined;
    },
  });
  return { problem: problem ? `the frontmatter ${problem}` : null, data: doc.toJS() };
}

function lineOf(src: string, offset: number | undefined): string {
  if (offset === undefined) return '';
  const line = src.slice(0, offset).split('\n').length;
  const text = src.split('\n')[line - 1]?.trim() ?? '';
  return ` on its line ${line} (${text.length > 60 ? `${text.slice(0, 57)}…` : text})`;
}

/** Whether a `!` tag is written at the node (failsafe resolution sets no tag of its own). */
function hasExplicitTag(src: string, offset: number | undefined): boolean {
  if (offset === undefined) return true;
  return /![^\s]*\s*$/.test(src.slice(Math.max(0, offset - 40), offset));
}

/**
 * What `skills-ref validate` would reject in a skill folder's SKILL.md (`bytes`), as warnings:
 * SkillDesk still imports the skill, and says what other tools will refuse. `folder` is the
 * folder's name (null when it has none, as for a zip's top), checked against `name`.
 */
export function skillsRefWarnings(bytes: Uint8Array, folder: string | null): PackageIssue[] {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return [{ path: 'SKILL.md', message: 'is not UTF-8 text; skills-ref validate cannot read it' }];
  }
  text = text.replace(/\r\n?/g, '\n');
  const out: PackageIssue[] = [];
  const warn = (path: string, message: string) => out.push({ path, message });
  if (text.startsWith('\uFEFF---')) {
    // Rejected already; the rest is still checked, so every fix is named at once.
    warn(
      'SKILL.md',
      'starts with a byte order mark (BOM); skills-ref validate wants "---" as its first bytes',
    );
    text = text.slice(1);
  }
  if (!text.startsWith('---')) {
    warn('SKILL.md', 'does not start with "---"; skills-ref validate wants the YAML frontmatter first');
    return out;
  }
  const end = text.indexOf('---', 3);
  if (end < 0) {
    warn('SKILL.md', 'has no closing "---" after its frontmatter; skills-ref validate rejects it');
    return out;
  }
  const { problem, data } = strictYaml(text.slice(3, end));
  if (problem) {
    warn('frontmatter', `${problem}; skills-ref validate rejects it (SkillDesk reads it)`);
    return out;
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    warn('frontmatter', 'is not a YAML mapping of keys; skills-ref validate rejects it');
    return out;
  }
  const fm = data as Record<string, unknown>;
  const extra = Object.keys(fm).filter((k) => !SKILLS_REF_KEYS.includes(k));
  if (extra.length > 0) {
    warn(
      'frontmatter',
      `has ${extra.map((k) => `"${k}"`).join(', ')} beyond the Agent Skills standard's keys; kept (and exported as written), though skills-ref validate rejects them`,
    );
  }
  if (!('name' in fm)) warn('name', 'is missing from the frontmatter; skills-ref validate requires it');
  else {
    const problem = nameProblem(fm.name, folder);
    if (problem) warn('name', problem);
  }
  const d = fm.description;
  if (!('description' in fm))
    warn('description', 'is missing from the frontmatter; skills-ref validate requires it');
  else if (typeof d !== 'string' || d.trim() === '')
    warn('description', 'must be a non-empty text; skills-ref validate rejects it');
  else if (pyLen(d) > MAX_DESCRIPTION)
    warn(
      'description',
      `is ${pyLen(d).toLocaleString('en-US')} characters; the Agent Skills standard allows 1,024, so skills-ref validate rejects the SKILL.md`,
    );
  if ('compatibility' in fm) {
    const c = fm.compatibility;
    if (typeof c !== 'string')
      warn('compatibility', 'must be text; skills-ref validate rejects a list or map');
    else if (pyLen(c) > MAX_COMPATIBILITY)
      warn(
        'compatibility',
        `is ${pyLen(c)} characters; the Agent Skills standard allows 500, so skills-ref validate rejects it`,
      );
  }
  return out;
}

/** What the reference validator says about a frontmatter `name`, or null when it complies. */
function nameProblem(raw: unknown, folder: string | null): string | null {
  if (typeof raw !== 'string' || raw.trim() === '')
    return 'must be a non-empty text; skills-ref validate rejects it';
  const name = raw.trim().normalize('NFKC');
  if (pyLen(name) > MAX_NAME)
    return `"${name}" is longer than the 64 characters the Agent Skills standard allows`;
  if (
    name !== name.toLowerCase() ||
    name.startsWith('-') ||
    name.endsWith('-') ||
    name.includes('--') ||
    !/^[\p{L}\p{N}-]+$/u.test(name)
  ) {
    return `"${name}" breaks the Agent Skills naming rule (lowercase letters, digits and single hyphens, no hyphen at either end)`;
  }
  if (folder !== null && folder.normalize('NFKC') !== name) {
    return `"${name}" differs from its folder "${folder}"; the Agent Skills standard wants them equal`;
  }
  return null;
}
