import type { Element, Root, RootContent } from 'hast';
import { describe, expect, it } from 'vitest';
import { highlightTree, langFor } from './highlight.js';

function textOf(n: Root | RootContent): string {
  if (n.type === 'text') return n.value;
  return 'children' in n ? n.children.map(textOf).join('') : '';
}

/** Every [class, text] pair of the highlighted spans. */
function spans(n: Root | RootContent, out: Array<[string, string]> = []): Array<[string, string]> {
  if (n.type === 'element') {
    const cls = ((n as Element).properties.className as string[] | undefined)?.join(' ') ?? '';
    out.push([cls, textOf(n)]);
  }
  if ('children' in n) for (const c of n.children) spans(c, out);
  return out;
}

describe('highlightTree', () => {
  const samples: Array<[string, Parameters<typeof highlightTree>[1]]> = [
    ['def f(x):\n    # note\n    return "a" + str(x) if x else None\n', 'python'],
    ['{"template_id": "cot", "n": 3, "ok": true, "x": null}', 'json'],
    ['# Title\nHello {{ name }} {% if x %}[[Page]]{% endif %} {# c #} `code`', 'template'],
    ['unterminated "string and {{ tag', 'template'],
    ['s = """open', 'python'],
    ['<img src=x onerror=alert(1)>', 'plain'],
  ];

  it('loses no characters', () => {
    for (const [text, lang] of samples) expect(textOf(highlightTree(text, lang))).toBe(text);
  });

  it('marks keywords, strings, comments, properties and template variables', () => {
    const py = spans(highlightTree(samples[0]![0], 'python'));
    expect(py).toContainEqual(['hljs-keyword', 'def']);
    expect(py).toContainEqual(['hljs-comment', '# note']);
    expect(py).toContainEqual(['hljs-string', '"a"']);
    const json = spans(highlightTree(samples[1]![0], 'json'));
    expect(json).toContainEqual(['hljs-attr', '"template_id"']);
    const tpl = spans(highlightTree(samples[2]![0], 'template'));
    expect(tpl.some(([c, t]) => c === 'hljs-template-variable' && t.includes('name'))).toBe(true);
  });

  it('picks a language per artifact', () => {
    expect(langFor('code_template', 'x')).toBe('python');
    expect(langFor('dspy_module', 'x')).toBe('json');
    expect(langFor('resource', 'style.md')).toBe('template');
    expect(langFor('resource', 'data.bin')).toBe('plain');
  });
});
