/**
 * Syntax highlighting for artifact content and traces, by highlight.js grammars through lowlight
 * (a tree of elements, never an HTML string). Templates use the Django grammar, which reads
 * MiniJinja's `{{ … }}` and `{% … %}`.
 */
import type { Root } from 'hast';
import django from 'highlight.js/lib/languages/django';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import xml from 'highlight.js/lib/languages/xml';
import { createLowlight } from 'lowlight';

/** The languages artifact content is shown in. */
export type Lang = 'python' | 'json' | 'template' | 'plain';

const lowlight = createLowlight({ python, json, django, xml });
const GRAMMAR: Record<Exclude<Lang, 'plain'>, string> = {
  python: 'python',
  json: 'json',
  template: 'django',
};

/** The highlighted tree of a text; plain text (or a grammar failure) is one text node. */
export function highlightTree(text: string, lang: Lang): Root {
  if (lang !== 'plain') {
    try {
      return lowlight.highlight(GRAMMAR[lang], text);
    } catch {
      // A grammar that chokes on odd input still shows the text.
    }
  }
  return { type: 'root', children: [{ type: 'text', value: text }] };
}

/** The language an artifact's content is shown in, from its kind and name. */
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
