import { describe, expect, it } from 'vitest';
import { parseInline, parseMarkdown, safeHref } from './markdown.js';

describe('markdown', () => {
  it('parses inline emphasis, code and links', () => {
    expect(parseInline('a **b** _c_ *d* `e*f*` [g](https://x.test/a) h')).toEqual([
      { t: 'text', v: 'a ' },
      { t: 'strong', c: [{ t: 'text', v: 'b' }] },
      { t: 'text', v: ' ' },
      { t: 'em', c: [{ t: 'text', v: 'c' }] },
      { t: 'text', v: ' ' },
      { t: 'em', c: [{ t: 'text', v: 'd' }] },
      { t: 'text', v: ' ' },
      { t: 'code', v: 'e*f*' },
      { t: 'text', v: ' ' },
      { t: 'link', href: 'https://x.test/a', c: [{ t: 'text', v: 'g' }] },
      { t: 'text', v: ' h' },
    ]);
  });

  it('keeps unsafe links as text and leaves snake_case alone', () => {
    expect(parseInline('[click](javascript:alert)')).toEqual([{ t: 'text', v: 'click' }]);
    expect(safeHref('data:text/html,x')).toBeNull();
    expect(safeHref('mailto:a@b.c')).toBe('mailto:a@b.c');
    expect(parseInline('snake_case_name and 2 * 3 * 4')).toEqual([
      { t: 'text', v: 'snake_case_name and 2 * 3 * 4' },
    ]);
    expect(parseInline('<img src=x onerror=alert(1)>')).toEqual([
      { t: 'text', v: '<img src=x onerror=alert(1)>' },
    ]);
  });

  it('autolinks bare URLs without trailing punctuation', () => {
    expect(parseInline('see https://example.com/docs.')).toEqual([
      { t: 'text', v: 'see ' },
      { t: 'link', href: 'https://example.com/docs', c: [{ t: 'text', v: 'https://example.com/docs' }] },
      { t: 'text', v: '.' },
    ]);
  });

  it('parses blocks: headings, lists, fenced code (closed or still streaming), quotes', () => {
    const md =
      '# Title\n\nIntro line\nsecond line\n\n- one\n- two\n\n1. first\n2. second\n\n> quoted\n\n```py\nprint(1)\n```\n\n```js\nlet a';
    const blocks = parseMarkdown(md);
    expect(blocks.map((b) => b.t)).toEqual(['h', 'p', 'list', 'list', 'quote', 'code', 'code']);
    expect(blocks[1]).toEqual({
      t: 'p',
      c: [{ t: 'text', v: 'Intro line' }, { t: 'br' }, { t: 'text', v: 'second line' }],
    });
    expect(blocks[2]).toMatchObject({ ordered: false, items: [[{ t: 'p' }], [{ t: 'p' }]] });
    expect(blocks[3]).toMatchObject({ ordered: true, start: 1 });
    expect(blocks[5]).toEqual({ t: 'code', lang: 'py', v: 'print(1)' });
    expect(blocks[6]).toEqual({ t: 'code', lang: 'js', v: 'let a' });
  });
});
