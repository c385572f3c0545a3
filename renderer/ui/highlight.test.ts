import { describe, expect, it } from 'vitest';
import { langFor, tokenize } from './highlight.js';

describe('tokenize', () => {
  const samples: Array<[string, Parameters<typeof tokenize>[1]]> = [
    ['def f(x):\n    # note\n    return "a" + str(x) if x else None\n', 'python'],
    ['{"template_id": "cot", "n": 3, "ok": true, "x": null}', 'json'],
    ['# Title\nHello {{ name }} {% if x %}[[Page]]{% endif %} {# c #} `code`', 'template'],
    ['unterminated "string and {{ tag', 'template'],
    ['s = """open', 'python'],
  ];

  it('loses no characters', () => {
    for (const [text, lang] of samples)
      expect(
        tokenize(text, lang)
          .map((t) => t.text)
          .join(''),
      ).toBe(text);
  });

  it('recognises the main token kinds', () => {
    const py = tokenize(samples[0]![0], 'python');
    expect(py).toContainEqual({ type: 'keyword', text: 'def' });
    expect(py).toContainEqual({ type: 'comment', text: '# note' });
    expect(py).toContainEqual({ type: 'string', text: '"a"' });
    expect(py).toContainEqual({ type: 'literal', text: 'None' });
    const json = tokenize(samples[1]![0], 'json');
    expect(json).toContainEqual({ type: 'property', text: '"template_id"' });
    expect(json).toContainEqual({ type: 'string', text: '"cot"' });
    const tpl = tokenize(samples[2]![0], 'template');
    expect(tpl[0]).toEqual({ type: 'heading', text: '# Title' });
    expect(tpl).toContainEqual({ type: 'variable', text: '{{ name }}' });
    expect(tpl).toContainEqual({ type: 'link', text: '[[Page]]' });
  });

  it('picks a language per artifact', () => {
    expect(langFor('code_template', 'x')).toBe('python');
    expect(langFor('dspy_module', 'x')).toBe('json');
    expect(langFor('resource', 'style.md')).toBe('template');
    expect(langFor('resource', 'data.bin')).toBe('plain');
  });
});
