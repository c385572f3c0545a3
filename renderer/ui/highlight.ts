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
import { isArtifactKind, KIND_FACTS, languageOfKind } from '../../electron/contract/kinds.js';

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
  if (!isArtifactKind(kind)) return 'template';
  const lang = languageOfKind(kind, name);
  if (lang === 'python' || lang === 'json') return lang;
  // A file whose name says neither code nor text is shown as it is.
  if (KIND_FACTS[kind].language === 'by-name' && !/\.(md|txt|j2|jinja)$/i.test(name)) return 'plain';
  return 'template';
}
