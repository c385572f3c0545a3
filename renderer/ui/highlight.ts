/**
 * A small tokenizer so artifact content reads like code in an editor: Python, JSON, and
 * templates (MiniJinja tags over Markdown-ish prose). Pure; never throws; loses no characters.
 */

/** A token's role, mapped to a CSS class. */
export type TokenType =
  | 'plain'
  | 'keyword'
  | 'string'
  | 'number'
  | 'comment'
  | 'function'
  | 'property'
  | 'literal'
  | 'punct'
  | 'tag'
  | 'variable'
  | 'heading'
  | 'link'
  | 'code';

/** One run of text with its role. */
export interface Token {
  type: TokenType;
  text: string;
}

/** The languages the highlighter knows. */
export type Lang = 'python' | 'json' | 'template' | 'plain';

const PY_KEYWORDS = new Set(
  'and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case'.split(
    ' ',
  ),
);
const PY_LITERALS = new Set(['None', 'True', 'False', 'self']);

type Rule = [RegExp, TokenType | ((m: string, rest: string) => TokenType)];

const PYTHON: Rule[] = [
  [/^#[^\n]*/, 'comment'],
  [/^(?:[rRbBfFuU]{0,2})("""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$))/, 'string'],
  [/^(?:[rRbBfFuU]{0,2})("(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?)/, 'string'],
  [/^@[A-Za-z_][\w.]*/, 'function'],
  [/^\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?/, 'number'],
  [
    /^[A-Za-z_]\w*/,
    (m, rest) =>
      PY_KEYWORDS.has(m)
        ? 'keyword'
        : PY_LITERALS.has(m)
          ? 'literal'
          : rest.startsWith('(')
            ? 'function'
            : 'plain',
  ],
  [/^[()[\]{}:,.;=+\-*/%<>!&|^~]+/, 'punct'],
];

const JSON_RULES: Rule[] = [
  [/^"(?:[^"\\]|\\.)*"?/, (_m, rest) => (/^\s*:/.test(rest) ? 'property' : 'string')],
  [/^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/, 'number'],
  [/^(?:true|false|null)\b/, 'literal'],
  [/^[{}[\],:]/, 'punct'],
];

const TEMPLATE: Rule[] = [
  [/^\{#[\s\S]*?(?:#\}|$)/, 'comment'],
  [/^\{\{[\s\S]*?(?:\}\}|$)/, 'variable'],
  [/^\{%[\s\S]*?(?:%\}|$)/, 'tag'],
  [/^\[\[[^\]\n]*\]\]/, 'link'],
  [/^`[^`\n]+`/, 'code'],
];

function scan(text: string, rules: Rule[], lineStart: (t: string, i: number) => Token | null): Token[] {
  const out: Token[] = [];
  let plain = '';
  const flush = () => {
    if (plain) out.push({ type: 'plain', text: plain });
    plain = '';
  };
  let i = 0;
  while (i < text.length) {
    if (i === 0 || text[i - 1] === '\n') {
      const t = lineStart(text, i);
      if (t) {
        flush();
        out.push(t);
        i += t.text.length;
        continue;
      }
    }
    const rest = text.slice(i);
    let matched = false;
    for (const [re, type] of rules) {
      const m = re.exec(rest);
      if (!m || m[0].length === 0) continue;
      const after = rest.slice(m[0].length);
      const t = typeof type === 'function' ? type(m[0], after) : type;
      if (t === 'plain') plain += m[0];
      else {
        flush();
        out.push({ type: t, text: m[0] });
      }
      i += m[0].length;
      matched = true;
      break;
    }
    if (!matched) {
      plain += text[i];
      i++;
    }
  }
  flush();
  return out;
}

const noLineRule = () => null;
const markdownHeading = (t: string, i: number): Token | null => {
  const m = /^#{1,6} [^\n]*/.exec(t.slice(i));
  return m ? { type: 'heading', text: m[0] } : null;
};

/** Split text into highlighted tokens. Long inputs are left plain beyond `max` characters. */
export function tokenize(text: string, lang: Lang, max = 200_000): Token[] {
  const head = text.slice(0, max);
  const tail = text.slice(max);
  let tokens: Token[];
  switch (lang) {
    case 'python':
      tokens = scan(head, PYTHON, noLineRule);
      break;
    case 'json':
      tokens = scan(head, JSON_RULES, noLineRule);
      break;
    case 'template':
      tokens = scan(head, TEMPLATE, markdownHeading);
      break;
    case 'plain':
      tokens = [{ type: 'plain', text: head }];
      break;
  }
  return tail ? [...tokens, { type: 'plain', text: tail }] : tokens;
}

/** The language to show an artifact's content in. */
export function langFor(kind: string, name: string): Lang {
  if (kind === 'code_template') return 'python';
  if (kind === 'dspy_module') return 'json';
  if (kind === 'resource') {
    if (/\.py$/i.test(name)) return 'python';
    if (/\.json$/i.test(name)) return 'json';
    if (/\.(md|txt|j2|jinja)$/i.test(name)) return 'template';
    return 'plain';
  }
  return 'template';
}
