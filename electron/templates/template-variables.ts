/**
 * The variables a MiniJinja template reads, found in one pass over its text: each `{{ … }}` and
 * `{% … %}` is tokenized once, names the template defines itself (loop targets, `set`, macro
 * names and parameters, `with`, imports) are set aside, and every other name read in an
 * expression is a variable — in the order first read, branches and filter arguments included.
 * The cost is linear in the template's length (minijinja-js exposes no AST, and rendering once per
 * variable made a 100,000-line template take seconds).
 */

type Token = { kind: 'name' | 'string' | 'number' | 'op'; text: string };

/** One `{{ … }}` or `{% … %}` of a template. */
interface Tag {
  kind: 'expr' | 'stmt';
  body: string;
}

/**
 * The variables `template` reads, in the order first read; see the module comment. Everything it
 * uses is inside it, so its source also runs as is in a worker thread (see `template-check.ts`).
 */
export function templateVariables(template: string): string[] {
  /** Words of the expression language, never variables. */
  const KEYWORDS = new Set([
    'and',
    'or',
    'not',
    'in',
    'is',
    'if',
    'else',
    'true',
    'false',
    'none',
    'True',
    'False',
    'None',
    'recursive',
    'with',
    'without',
    'context',
    'ignore',
    'missing',
    'as',
    'import',
    'from',
  ]);

  /** Names the engine provides, never context variables. */
  const GLOBALS = new Set([
    'loop',
    'range',
    'namespace',
    'dict',
    'super',
    'self',
    'caller',
    'varargs',
    'kwargs',
    'debug',
    'lipsum',
    'cycler',
    'joiner',
  ]);

  const isNameStart = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
  const isDigit = (c: number) => c >= 48 && c <= 57;
  const isSpace = (c: number) => c === 32 || c === 10 || c === 9 || c === 13;
  const TWO_CHAR_OPS = new Set(['==', '!=', '<=', '>=', '//', '**']);

  /** The tokens of an expression, by hand: it runs once per tag, and a regex was the hot spot. */
  function tokenize(src: string): Token[] {
    const out: Token[] = [];
    const n = src.length;
    let i = 0;
    while (i < n) {
      const c = src.charCodeAt(i);
      if (isSpace(c)) {
        i++;
        continue;
      }
      const start = i;
      if (isNameStart(c)) {
        i++;
        while (i < n) {
          const d = src.charCodeAt(i);
          if (isNameStart(d) || isDigit(d)) i++;
          else break;
        }
        out.push({ kind: 'name', text: src.slice(start, i) });
      } else if (isDigit(c)) {
        i++;
        while (i < n && (isDigit(src.charCodeAt(i)) || src[i] === '_' || src[i] === '.')) i++;
        out.push({ kind: 'number', text: src.slice(start, i) });
      } else if (c === 34 || c === 39) {
        i++;
        while (i < n && src.charCodeAt(i) !== c) i += src.charCodeAt(i) === 92 ? 2 : 1;
        i++;
        out.push({ kind: 'string', text: src.slice(start, Math.min(i, n)) });
      } else {
        const len = TWO_CHAR_OPS.has(src.slice(i, i + 2)) ? 2 : 1;
        i += len;
        out.push({ kind: 'op', text: src.slice(start, i) });
      }
    }
    return out;
  }

  /**
   * The tags of a template in order, skipping comments and `{% raw %}` blocks. A string literal
   * inside a tag may contain `}}` or `%}`; it does not end the tag.
   */
  function* tags(template: string): Generator<Tag> {
    let i = 0;
    const n = template.length;
    while (i < n) {
      const open = template.indexOf('{', i);
      if (open < 0 || open + 1 >= n) return;
      const c = template[open + 1];
      if (c === '#') {
        const end = template.indexOf('#}', open + 2);
        if (end < 0) return;
        i = end + 2;
        continue;
      }
      if (c !== '{' && c !== '%') {
        i = open + 1;
        continue;
      }
      const close = c === '{' ? '}}' : '%}';
      let j = open + 2;
      let quote: string | null = null;
      let end = -1;
      for (; j < n; j++) {
        const ch = template[j]!;
        if (quote) {
          if (ch === '\\') j++;
          else if (ch === quote) quote = null;
        } else if (ch === '"' || ch === "'") quote = ch;
        else if (ch === close[0] && template[j + 1] === '}') {
          end = j;
          break;
        }
      }
      if (end < 0) return;
      // Whitespace control: `{{-`, `-}}`, `{%+`.
      let from = open + 2;
      let to = end;
      if (template[from] === '-' || template[from] === '+') from++;
      if (to > from && (template[to - 1] === '-' || template[to - 1] === '+')) to--;
      const body = template.slice(from, to);
      i = end + 2;
      if (c === '%' && body.length < 16 && /^\s*raw\s*$/.test(body)) {
        const endraw = /\{%-?\s*endraw\s*-?%\}/g;
        endraw.lastIndex = i;
        const m = endraw.exec(template);
        if (!m) return;
        i = m.index + m[0].length;
        continue;
      }
      yield { kind: c === '{' ? 'expr' : 'stmt', body };
    }
  }

  /** Names read by an expression's tokens (not attributes, filter or test names, or keyword arguments). */
  function readsOf(tokens: Token[], from: number, to: number, reads: Set<string>): void {
    let depth = 0;
    for (let k = from; k < to; k++) {
      const t = tokens[k]!;
      if (t.kind === 'op') {
        if (t.text === '(' || t.text === '[' || t.text === '{') depth++;
        else if (t.text === ')' || t.text === ']' || t.text === '}') depth = Math.max(0, depth - 1);
        continue;
      }
      if (t.kind !== 'name') continue;
      const prev = tokens[k - 1];
      const next = tokens[k + 1];
      if (prev?.kind === 'op' && (prev.text === '.' || prev.text === '|')) continue;
      if (prev?.kind === 'name' && prev.text === 'is') continue;
      if (prev?.kind === 'name' && prev.text === 'not' && tokens[k - 2]?.text === 'is') continue;
      // `f(key=value)`: the key is an argument name.
      if (depth > 0 && next?.kind === 'op' && next.text === '=') continue;
      if (KEYWORDS.has(t.text) || GLOBALS.has(t.text)) continue;
      reads.add(t.text);
    }
  }

  /** The names before `=` of `a = x, b = y` (a `with` or `set` head); the rest are expressions. */
  function assignments(tokens: Token[], from: number, locals: Set<string>, reads: Set<string>): void {
    let k = from;
    while (k < tokens.length) {
      const name = tokens[k];
      if (name?.kind === 'name' && tokens[k + 1]?.text === '=') {
        locals.add(name.text);
        k += 2;
      }
      let depth = 0;
      const start = k;
      while (k < tokens.length) {
        const t = tokens[k]!.text;
        if (t === '(' || t === '[' || t === '{') depth++;
        else if (t === ')' || t === ']' || t === '}') depth--;
        else if (t === ',' && depth === 0) break;
        k++;
      }
      readsOf(tokens, start, k, reads);
      k++;
    }
  }

  function find(template: string): string[] {
    const locals = new Set<string>();
    const reads = new Set<string>();
    for (const tag of tags(template)) {
      const tokens = tokenize(tag.body);
      if (tag.kind === 'expr') {
        readsOf(tokens, 0, tokens.length, reads);
        continue;
      }
      const head = tokens[0]?.text;
      switch (head) {
        case 'for': {
          let k = 1;
          for (; k < tokens.length && tokens[k]!.text !== 'in'; k++) {
            if (tokens[k]!.kind === 'name') locals.add(tokens[k]!.text);
          }
          readsOf(tokens, k + 1, tokens.length, reads);
          break;
        }
        case 'set': {
          // `set x = …`, `set a, b = …`, `set ns.attr = …` and the block form `set x %}…`.
          const eq = tokens.findIndex((t) => t.text === '=');
          const targets = eq < 0 ? tokens.length : eq;
          for (let k = 1; k < targets; k++) {
            const t = tokens[k]!;
            if (t.kind !== 'name') continue;
            if (tokens[k - 1]?.text === '.') continue;
            if (tokens[k + 1]?.text === '.') reads.add(t.text);
            else if (tokens[k - 1]?.text === '|') continue;
            else locals.add(t.text);
          }
          if (eq >= 0) readsOf(tokens, eq + 1, tokens.length, reads);
          break;
        }
        case 'with':
          assignments(tokens, 1, locals, reads);
          break;
        case 'macro':
        case 'call': {
          // `macro name(a, b=default)`; `call(args) name(args)`: parameters and the macro are local.
          let k = 1;
          if (head === 'call' && tokens[1]?.text === '(') {
            let depth = 0;
            for (k = 1; k < tokens.length; k++) {
              if (tokens[k]!.text === '(') depth++;
              else if (tokens[k]!.text === ')' && --depth === 0) break;
            }
            for (let p = 2; p < k; p++) {
              const t = tokens[p]!;
              if (t.kind === 'name' && (tokens[p - 1]?.text === '(' || tokens[p - 1]?.text === ','))
                locals.add(t.text);
            }
            k++;
            if (tokens[k]?.kind === 'name') {
              reads.add(tokens[k]!.text);
              readsOf(tokens, k + 1, tokens.length, reads);
            }
            break;
          }
          if (tokens[k]?.kind === 'name') locals.add(tokens[k]!.text);
          for (let p = k + 1; p < tokens.length; p++) {
            const t = tokens[p]!;
            const before = tokens[p - 1]?.text;
            if (t.kind === 'name' && (before === '(' || before === ',') && head === 'macro')
              locals.add(t.text);
            else if (t.kind === 'name' && before === '=') {
              const from = p;
              while (p < tokens.length && tokens[p]!.text !== ',' && tokens[p]!.text !== ')') p++;
              readsOf(tokens, from, p, reads);
              p--;
            }
          }
          break;
        }
        case 'import':
        case 'from':
          for (let k = 1; k < tokens.length; k++) {
            const t = tokens[k]!;
            const before = tokens[k - 1]?.text;
            if (
              t.kind === 'name' &&
              (before === 'as' || (head === 'from' && (before === 'import' || before === ',')))
            )
              locals.add(t.text);
          }
          break;
        case 'block':
        case 'filter':
        case 'autoescape':
        case 'endfor':
        case 'endif':
        case 'endset':
        case 'endwith':
        case 'endmacro':
        case 'endcall':
        case 'endblock':
        case 'endfilter':
        case 'endautoescape':
        case 'else':
        case 'continue':
        case 'break':
          break;
        default:
          // if, elif, include, extends, do, print: the rest is an expression.
          readsOf(tokens, 1, tokens.length, reads);
      }
    }
    return [...reads].filter((r) => !locals.has(r));
  }

  return find(template);
}
