import { validRange } from '@renovatebot/pep440';
import { AppError } from '../contract/errors.js';

/**
 * A skill's `requirements.txt`, read by SkillDesk alone. pip runs outside every sandbox and its
 * requirements-file format is a small command language (options, `-e`, `-r`, URLs, `${VAR}`
 * expansion, lines split by Python's `str.splitlines()`), so pip is never handed a skill's text:
 * this parser accepts a strict subset — a PEP 508 name, extras, PEP 440 version specifiers, a
 * marker on a few variables, `--hash=sha256:` values — and SkillDesk writes the requirements pip
 * reads from what it parsed. Anything else refuses the whole file, naming line and column.
 */

/** One version specifier (`>=`, `1.0`). */
export interface VersionSpecifier {
  op: string;
  version: string;
}

/** One requirement, parsed; {@link requirementSpec} is the only text pip sees of it. */
export interface Requirement {
  /** SkillDesk's own spelling: `name[extras]specifiers ; marker` (no hashes). */
  spec: string;
  /** The normalised project name (PEP 503). */
  name: string;
  /** `--hash=sha256:…` values given with it, lowercase. */
  hashes: string[];
  extras: string[];
  specifiers: VersionSpecifier[];
  /** The marker as SkillDesk writes it, or null. */
  marker: string | null;
  /** The line it started on (1-based). */
  line: number;
}

/** Marker variables a requirement may test: facts of the Python that runs it, nothing else. */
export const MARKER_VARIABLES = [
  'python_version',
  'python_full_version',
  'sys_platform',
  'platform_system',
  'implementation_name',
] as const;

/** Whether a skill file is a requirements file SkillDesk reads (and checks at import). */
export function isRequirementsPath(path: string): boolean {
  return /(^|\/)requirements\.txt$/.test(path);
}

/** PEP 503 name normalisation. */
export function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/** A requirement as the line SkillDesk writes for pip, hashes included. */
export function requirementLine(r: Requirement): string {
  return [r.spec, ...r.hashes.map((h) => `--hash=sha256:${h}`)].join(' ');
}

/** Characters Python's `str.splitlines()` (so pip) ends a line at, besides LF and CRLF. */
const PIP_LINE_BREAKS: ReadonlyMap<number, string> = new Map([
  [0x0d, 'a carriage return not followed by a line feed'],
  [0x0b, 'a vertical tab'],
  [0x0c, 'a form feed'],
  [0x1c, 'a file separator'],
  [0x1d, 'a group separator'],
  [0x1e, 'a record separator'],
  [0x85, 'a next-line character (NEL)'],
  [0x2028, 'a line separator'],
  [0x2029, 'a paragraph separator'],
]);

const HINT =
  'A requirements.txt may hold only requirements — a name, optional [extras], version specifiers, ' +
  `a marker on ${MARKER_VARIABLES.join(', ')} compared with a quoted value, optional --hash=sha256:… — ` +
  'and # comments; pip options, URLs, paths and $\u007b…} are refused, and so is the whole file';

/** `"x"` for a printable ASCII character, `<U+2028>` for anything else. */
export function visibleChar(ch: string): string {
  const cp = ch.codePointAt(0)!;
  if (cp > 0x20 && cp < 0x7f) return `"${ch}"`;
  if (cp === 0x20) return 'a space';
  return `<U+${cp.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** One character of a line with where it stands in the file. */
interface Ch {
  c: string;
  line: number;
  col: number;
}

class Refused extends Error {
  constructor(
    readonly line: number,
    readonly col: number,
    readonly what: string,
  ) {
    super(what);
  }
}

const CONTROL_OR_FORMAT = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}]/u;
const NAME_CHAR = /[A-Za-z0-9._-]/;
const ALNUM = /[A-Za-z0-9]/;
// No space: pip splits a requirement line at spaces and reads a word starting with "-" as an
// option, so `"3 --pre"` in a quoted value would pass pip an option once written back.
const LITERAL_CHAR = /[A-Za-z0-9._*+!-]/;
const HEX64 = /^[0-9a-fA-F]{64}$/;
// pip takes a "name" with one of these endings for a local archive file, not a project on the index.
const ARCHIVE_SUFFIX = /\.(zip|whl|tar|tgz|tbz|txz|tlz|tar\.gz|tar\.bz2|tar\.xz|tar\.lz|tar\.lzma)$/i;
const VERSION_OPS = ['===', '==', '!=', '<=', '>=', '~=', '<', '>'] as const;

/**
 * Parse a `requirements.txt` strictly (see the module's comment). Throws AppError INVALID_INPUT
 * naming `file`, the line and the column of the first thing refused, in visible form.
 */
export function parseRequirements(text: string, file = 'requirements.txt'): Requirement[] {
  try {
    return logicalLines(physicalLines(text)).flatMap((l) => {
      const r = parseLine(l);
      return r ? [r] : [];
    });
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
    throw new AppError('INVALID_INPUT', `${file} line ${e.line}, column ${e.col}: ${e.what}. ${HINT}.`, {
      file,
      line: e.line,
      column: e.col,
    });
  }
}

/**
 * The file's lines as SkillDesk and pip would both see them: only LF and CRLF end a line; every
 * other character pip breaks a line at, and every control or invisible format character, refuses
 * the file, as does `${` (pip would expand an environment variable there). A leading BOM is
 * allowed: editors on Windows write one, pip drops it too, and it is never passed on.
 */
function physicalLines(text: string): Ch[][] {
  const lines: Ch[][] = [[]];
  const cps = [...text];
  let line = 1;
  let col = 0;
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!;
    col++;
    if (c === '\n') {
      lines.push([]);
      line++;
      col = 0;
      continue;
    }
    if (c === '\r' && cps[i + 1] === '\n') continue;
    const cp = c.codePointAt(0)!;
    const lb = PIP_LINE_BREAKS.get(cp);
    if (lb) {
      throw new Refused(
        line,
        col,
        `${visibleChar(c)} (${lb}) ends a line for pip but not for a reader of the file, so it could hide a line`,
      );
    }
    if (i === 0 && cp === 0xfeff) {
      col = 0;
      continue;
    }
    if (c !== '\t' && CONTROL_OR_FORMAT.test(c)) {
      throw new Refused(
        line,
        col,
        `${visibleChar(c)} is a control or invisible format character (bidi, zero-width and the like are refused)`,
      );
    }
    if (c === '$' && cps[i + 1] === '{') {
      throw new Refused(line, col, '"$\u007b" is refused: pip expands $\u007bVARIABLE} from its environment');
    }
    lines[lines.length - 1]!.push({ c, line, col });
  }
  return lines;
}

const isWs = (ch: Ch | undefined) => ch !== undefined && (ch.c === ' ' || ch.c === '\t');

/**
 * Comments dropped and continuation lines joined. A comment starts at a `#` that begins the line or
 * follows a space or tab (pip's rule); a backslash is accepted only as the last character of a line
 * outside a comment (as `pip-compile --generate-hashes` writes), where it joins the next line.
 */
function logicalLines(lines: Ch[][]): Ch[][] {
  const out: Ch[][] = [];
  let pending: Ch[] | null = null;
  for (const chars of lines) {
    let end = chars.findIndex((ch, i) => ch.c === '#' && (i === 0 || isWs(chars[i - 1])));
    if (end < 0) end = chars.length;
    const comment = chars.slice(end);
    const bs = comment.find((ch) => ch.c === '\\');
    if (bs)
      throw new Refused(
        bs.line,
        bs.col,
        'a backslash in a comment is refused (pip would join the next line into it)',
      );
    let code = chars.slice(0, end);
    const last = code.at(-1);
    const continues = last?.c === '\\' && end === chars.length;
    if (continues) code = code.slice(0, -1);
    const stray = code.find((ch) => ch.c === '\\');
    if (stray) {
      throw new Refused(
        stray.line,
        stray.col,
        'a backslash is accepted only as the last character of a line, to continue the requirement on the next',
      );
    }
    pending = pending ? [...pending, { c: ' ', line: code[0]?.line ?? 0, col: 0 }, ...code] : code;
    if (!continues) {
      out.push(pending);
      pending = null;
    }
  }
  if (pending) out.push(pending);
  return out;
}

/** A recursive-descent reader over one logical line. */
class Reader {
  i = 0;
  constructor(readonly chars: Ch[]) {}
  peek(k = 0): string | undefined {
    return this.chars[this.i + k]?.c;
  }
  done(): boolean {
    return this.i >= this.chars.length;
  }
  ws(): boolean {
    const from = this.i;
    while (isWs(this.chars[this.i])) this.i++;
    return this.i > from;
  }
  startsWith(s: string): boolean {
    for (let k = 0; k < s.length; k++) if (this.peek(k) !== s[k]) return false;
    return true;
  }
  /** An error at the current character (or just after the last one). */
  fail(what: string, at = this.i): never {
    const ch = this.chars[at] ?? this.chars.at(-1);
    const col = this.chars[at] ? ch!.col : (ch?.col ?? 0) + 1;
    throw new Refused(ch?.line ?? 1, col, what);
  }
  /** The whitespace-delimited word around position `at`, to say what it looks like. */
  word(at = this.i): string {
    let a = at;
    let b = at;
    while (a > 0 && !isWs(this.chars[a - 1])) a--;
    while (b < this.chars.length && !isWs(this.chars[b])) b++;
    return this.chars
      .slice(a, b)
      .map((x) => x.c)
      .join('');
  }
  /** Refuse the character here, saying what the word it is in looks like. */
  unexpected(where: string): never {
    const c = this.peek();
    if (c === undefined) this.fail(`the line ends where ${where} should be`);
    const w = this.word();
    if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(w) || w.includes('://'))
      this.fail(`"${w.slice(0, 60)}" is a URL; requirements name a project on the index, never a URL`);
    if (c === '@' || w.includes('@'))
      this.fail('"@" starts a direct reference (name @ URL or path), which is refused');
    if (/^[.~/]/.test(w) || w.includes('/'))
      this.fail(
        `"${w.slice(0, 60)}" is a path; requirements name a project on the index, never a file or folder`,
      );
    this.fail(`${visibleChar(c)} is not expected here (${where})`);
  }
}

/** The name of the option starting here, as pip would read it (`--index-url`, `-i`). */
function optionName(r: Reader): string {
  let s = '';
  for (let k = 0; ; k++) {
    const c = r.peek(k);
    if (c === undefined || c === ' ' || c === '\t' || c === '=') break;
    s += c;
  }
  if (/^-[^-]/.test(s)) return s.slice(0, 2);
  return s.slice(0, 60);
}

function parseLine(chars: Ch[]): Requirement | null {
  const r = new Reader(chars);
  r.ws();
  if (r.done()) return null;
  const line = chars[r.i]!.line;
  if (r.peek() === '-') r.fail(`the pip option "${optionName(r)}" is refused`);
  if (r.peek() === '#') r.unexpected('a comment must follow a space');

  // Name: PEP 508 (letters, digits, and . _ - inside).
  const start = r.i;
  if (!ALNUM.test(r.peek() ?? '')) r.unexpected('a project name');
  let name = '';
  while (r.peek() !== undefined && NAME_CHAR.test(r.peek()!)) name += chars[r.i++]!.c;
  if (!ALNUM.test(name.at(-1)!))
    r.fail(`the project name "${name}" must end with a letter or digit`, r.i - 1);
  const next = r.peek();
  if (next !== undefined && !isWs(chars[r.i]) && !'[(;<=!>~'.includes(next)) r.unexpected('after the name');
  if (ARCHIVE_SUFFIX.test(name))
    r.fail(`"${name}" names an archive file, which pip would read from disk`, start);

  r.ws();
  const extras: string[] = [];
  if (r.peek() === '[') {
    r.i++;
    r.ws();
    while (r.peek() !== ']') {
      if (extras.length > 0) {
        if (r.peek() !== ',') r.unexpected('"," or "]" in the extras');
        r.i++;
        r.ws();
      }
      if (!ALNUM.test(r.peek() ?? '')) r.unexpected('an extra’s name');
      let extra = '';
      while (r.peek() !== undefined && NAME_CHAR.test(r.peek()!)) extra += chars[r.i++]!.c;
      if (!ALNUM.test(extra.at(-1)!)) r.fail(`the extra "${extra}" must end with a letter or digit`, r.i - 1);
      extras.push(normalizeName(extra));
      r.ws();
    }
    r.i++;
    r.ws();
  }

  const specifiers = parseSpecifiers(r);
  r.ws();
  if (r.peek() === '@') r.unexpected('a version specifier, ";" or the end of the line');

  let marker: string | null = null;
  if (r.peek() === ';') {
    r.i++;
    marker = serializeMarker(parseOr(r));
    r.ws();
  }

  const hashes: string[] = [];
  while (!r.done()) {
    if (r.peek() !== '-' || !isWs(chars[r.i - 1])) r.unexpected('"--hash=sha256:…" or the end of the line');
    const opt = optionName(r);
    if (opt !== '--hash')
      r.fail(`the pip option "${opt}" is refused (only --hash=sha256:… may follow a requirement)`);
    const at = r.i;
    r.i += opt.length;
    if (r.peek() === '=') r.i++;
    else if (!r.ws()) r.unexpected('"=" after --hash');
    let value = '';
    while (!r.done() && !isWs(chars[r.i])) value += chars[r.i++]!.c;
    const m = /^sha256:(.*)$/.exec(value);
    if (!m || !HEX64.test(m[1]!)) r.fail('--hash must be sha256: followed by 64 hexadecimal digits', at);
    hashes.push((m?.[1] ?? '').toLowerCase());
    r.ws();
  }

  const spec = `${name}${extras.length ? `[${extras.join(',')}]` : ''}${specifiers
    .map((s) => `${s.op}${s.version}`)
    .join(',')}${marker ? ` ; ${marker}` : ''}`;
  return { spec, name: normalizeName(name), hashes, extras, specifiers, marker, line };
}

/** `>=1.0, <2` or `(>=1.0,<2)`, each checked as PEP 440 says (wildcards only with == and !=). */
function parseSpecifiers(r: Reader): VersionSpecifier[] {
  const out: VersionSpecifier[] = [];
  const paren = r.peek() === '(';
  if (paren) {
    r.i++;
    r.ws();
  }
  for (;;) {
    const op = VERSION_OPS.find((o) => r.startsWith(o));
    if (!op) {
      if (out.length === 0 && !paren) return out;
      r.unexpected('a version comparison such as >=1.0');
    }
    const at = r.i;
    r.i += op.length;
    r.ws();
    let version = '';
    while (r.peek() !== undefined && /[A-Za-z0-9._*+!-]/.test(r.peek()!)) version += r.chars[r.i++]!.c;
    if (!version) r.unexpected('a version');
    if (!validRange(`${op}${version}`)) r.fail(`"${op}${version}" is not a PEP 440 version specifier`, at);
    out.push({ op, version });
    r.ws();
    if (r.peek() !== ',') break;
    r.i++;
    r.ws();
  }
  if (paren) {
    if (r.peek() !== ')') r.unexpected('")" after the version specifiers');
    r.i++;
  }
  return out;
}

type Marker =
  | { kind: 'cmp'; left: Operand; op: string; right: Operand }
  | { kind: 'and' | 'or'; items: Marker[] };
type Operand = { variable: string } | { literal: string };

function keyword(r: Reader, word: string): boolean {
  r.ws();
  if (!r.startsWith(word)) return false;
  const after = r.peek(word.length);
  if (after !== undefined && /[A-Za-z0-9_]/.test(after)) return false;
  r.i += word.length;
  return true;
}

function parseOr(r: Reader): Marker {
  const items = [parseAnd(r)];
  while (keyword(r, 'or')) items.push(parseAnd(r));
  return items.length === 1 ? items[0]! : { kind: 'or', items };
}

function parseAnd(r: Reader): Marker {
  const items = [parseExpr(r)];
  while (keyword(r, 'and')) items.push(parseExpr(r));
  return items.length === 1 ? items[0]! : { kind: 'and', items };
}

function parseExpr(r: Reader): Marker {
  r.ws();
  if (r.peek() === '(') {
    r.i++;
    const inner = parseOr(r);
    r.ws();
    if (r.peek() !== ')') r.unexpected('")" closing the marker’s group');
    r.i++;
    return inner;
  }
  const left = parseOperand(r);
  r.ws();
  let op = VERSION_OPS.find((o) => r.startsWith(o)) as string | undefined;
  if (op) r.i += op.length;
  else if (keyword(r, 'in')) op = 'in';
  else if (keyword(r, 'not')) {
    if (!keyword(r, 'in')) r.unexpected('"in" after "not"');
    op = 'not in';
  } else r.unexpected('a comparison (==, !=, <, <=, >, >=, ~=, ===, in, not in)');
  const right = parseOperand(r);
  if ('variable' in left === 'variable' in right)
    r.fail('a marker compares one variable with one quoted value', r.i - 1);
  return { kind: 'cmp', left, op, right };
}

function parseOperand(r: Reader): Operand {
  r.ws();
  const q = r.peek();
  if (q === '"' || q === "'") {
    const at = r.i;
    r.i++;
    let s = '';
    for (;;) {
      const c = r.peek();
      if (c === undefined) r.fail('this quoted value is not closed', at);
      if (c === q) break;
      if (c === '"' || c === "'") r.fail('a quote inside a quoted value is refused');
      if (!LITERAL_CHAR.test(c)) r.fail(`${visibleChar(c)} is refused in a marker’s quoted value`);
      s += c;
      r.i++;
    }
    r.i++;
    if (s.length > 100) r.fail('a marker’s quoted value may be at most 100 characters', at);
    return { literal: s };
  }
  let word = '';
  const at = r.i;
  while (r.peek() !== undefined && /[A-Za-z0-9_.]/.test(r.peek()!)) word += r.chars[r.i++]!.c;
  if (!word) r.unexpected('a marker variable or a quoted value');
  if (!(MARKER_VARIABLES as readonly string[]).includes(word))
    r.fail(
      `the marker variable "${word.slice(0, 40)}" is refused (allowed: ${MARKER_VARIABLES.join(', ')})`,
      at,
    );
  return { variable: word };
}

function serializeMarker(m: Marker, parent: 'and' | 'or' | null = null): string {
  if (m.kind === 'cmp') {
    const side = (o: Operand) => ('variable' in o ? o.variable : `"${o.literal}"`);
    return `${side(m.left)} ${m.op} ${side(m.right)}`;
  }
  const text = m.items.map((x) => serializeMarker(x, m.kind)).join(` ${m.kind} `);
  return parent === 'and' && m.kind === 'or' ? `(${text})` : text;
}
