import {
  autocompletion,
  closeBrackets,
  closeBracketsKeymap,
  completionKeymap,
} from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { json, jsonParseLinter } from '@codemirror/lang-json';
import { markdown } from '@codemirror/lang-markdown';
import { python } from '@codemirror/lang-python';
import {
  bracketMatching,
  foldGutter,
  HighlightStyle,
  indentOnInput,
  StreamLanguage,
  syntaxHighlighting,
} from '@codemirror/language';
import { jinja2 } from '@codemirror/legacy-modes/mode/jinja2';
import { type Diagnostic, linter, lintGutter, lintKeymap, setDiagnostics } from '@codemirror/lint';
import { highlightSelectionMatches, search, searchKeymap } from '@codemirror/search';
import { Compartment, EditorState, type Extension } from '@codemirror/state';
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
  placeholder as placeholderExt,
} from '@codemirror/view';
import { tags as t } from '@lezer/highlight';
import { useEffect, useRef } from 'react';

/** The languages the Composer edits. */
export type CodeLanguage = 'jinja' | 'python' | 'json' | 'markdown' | 'text';

/** A problem to mark in the gutter, by 1-based line and column. */
export interface EditorProblem {
  message: string;
  line?: number;
  column?: number;
  severity?: 'error' | 'warning';
}

// Colours come from the app's token variables, so the editor follows the light and dark themes.
const highlight = HighlightStyle.define([
  {
    tag: [t.keyword, t.controlKeyword, t.operatorKeyword, t.definitionKeyword, t.moduleKeyword],
    color: 'var(--tok-keyword)',
  },
  { tag: [t.string, t.special(t.string), t.regexp], color: 'var(--tok-string)' },
  { tag: [t.number, t.bool, t.null, t.atom], color: 'var(--tok-number)' },
  { tag: [t.comment, t.lineComment, t.blockComment], color: 'var(--tok-comment)', fontStyle: 'italic' },
  { tag: [t.function(t.variableName), t.function(t.propertyName)], color: 'var(--tok-function)' },
  { tag: [t.propertyName], color: 'var(--tok-property)' },
  { tag: [t.variableName, t.definition(t.variableName)], color: 'var(--tok-variable)' },
  { tag: [t.className, t.typeName], color: 'var(--tok-function)' },
  { tag: [t.bracket, t.punctuation, t.separator, t.operator], color: 'var(--tok-punct)' },
  { tag: [t.heading], color: 'var(--tok-heading)', fontWeight: '650' },
  { tag: [t.emphasis], fontStyle: 'italic' },
  { tag: [t.strong], fontWeight: '650' },
  { tag: [t.link, t.url], color: 'var(--tok-link)', textDecoration: 'underline' },
  { tag: [t.tagName, t.meta], color: 'var(--tok-tag)' },
]);

const theme = EditorView.theme({
  '&': { color: 'var(--text)', backgroundColor: 'var(--code-bg)', fontSize: '12.5px', height: '100%' },
  '&.cm-focused': { outline: 'none' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.6' },
  '.cm-content': { caretColor: 'var(--accent)', padding: '8px 0' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--accent)' },
  '.cm-gutters': {
    backgroundColor: 'var(--code-bg)',
    color: 'var(--text-3)',
    border: 'none',
    borderRight: '1px solid var(--border)',
  },
  '.cm-activeLine': { backgroundColor: 'var(--hover)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--hover)', color: 'var(--text-2)' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection': {
    backgroundColor: 'color-mix(in srgb, var(--accent) 22%, transparent) !important',
  },
  '.cm-matchingBracket': {
    backgroundColor: 'color-mix(in srgb, var(--accent) 18%, transparent)',
    outline: '1px solid color-mix(in srgb, var(--accent) 45%, transparent)',
    color: 'inherit',
  },
  '.cm-searchMatch': { backgroundColor: 'color-mix(in srgb, var(--warn) 30%, transparent)' },
  '.cm-panels': { backgroundColor: 'var(--surface-2)', color: 'var(--text)' },
  '.cm-panels.cm-panels-bottom': { borderTop: '1px solid var(--border)' },
  '.cm-panel.cm-search input, .cm-panel.cm-search button': { fontSize: '12px' },
  '.cm-textfield': {
    backgroundColor: 'var(--surface)',
    border: '1px solid var(--border)',
    borderRadius: '5px',
    color: 'var(--text)',
  },
  '.cm-button': {
    backgroundImage: 'none',
    backgroundColor: 'var(--surface)',
    border: '1px solid var(--border)',
    borderRadius: '5px',
    color: 'var(--text)',
  },
  '.cm-tooltip': {
    backgroundColor: 'var(--surface)',
    border: '1px solid var(--border)',
    borderRadius: '6px',
    boxShadow: 'var(--shadow)',
    color: 'var(--text)',
  },
  '.cm-diagnostic-error': { borderLeftColor: 'var(--danger)' },
  // CodeMirror draws these with data: URL images, which the app's CSP (img-src 'self') blocks.
  '.cm-lintRange-error, .cm-lintRange-warning, .cm-lintRange-info, .cm-lintRange-hint': {
    backgroundImage: 'none',
    textDecoration: 'underline wavy var(--danger)',
    textUnderlineOffset: '3px',
  },
  '.cm-lintRange-warning': { textDecorationColor: 'var(--warn)' },
  '.cm-lintRange-active': { backgroundColor: 'color-mix(in srgb, var(--warn) 20%, transparent)' },
  '.cm-gutter-lint': { width: '14px' },
  '.cm-gutter-lint .cm-gutterElement': { padding: '0 2px' },
  '.cm-lint-marker': { width: '10px', height: '10px', marginTop: '5px' },
  '.cm-lint-marker-error, .cm-lint-marker-warning, .cm-lint-marker-info': {
    content: 'none',
    backgroundImage: 'none',
    borderRadius: '50%',
    backgroundColor: 'var(--danger)',
    boxShadow: '0 0 0 2px var(--danger-soft)',
  },
  '.cm-lint-marker-warning': { backgroundColor: 'var(--warn)', boxShadow: '0 0 0 2px var(--warn-soft)' },
  '.cm-lint-marker-info': { backgroundColor: 'var(--text-3)', boxShadow: 'none' },
  '.cm-highlightTab': { backgroundImage: 'none' },
  '.cm-placeholder': { color: 'var(--text-3)' },
  '.cm-foldGutter span': { color: 'var(--text-3)' },
});

function languageOf(lang: CodeLanguage): Extension {
  switch (lang) {
    // Templates and Markdown are prose: their lines wrap; code and JSON scroll.
    case 'jinja':
      return [StreamLanguage.define(jinja2), EditorView.lineWrapping];
    case 'python':
      return python();
    case 'json':
      return [json(), linter(jsonOrEmpty, { delay: 300 })];
    case 'markdown':
      return [markdown(), EditorView.lineWrapping];
    case 'text':
      return EditorView.lineWrapping;
  }
}

const parseJson = jsonParseLinter();
/** JSON syntax errors, except in an empty editor (metadata and context may be left empty). */
function jsonOrEmpty(view: EditorView) {
  return view.state.doc.toString().trim() === '' ? [] : parseJson(view);
}

/** Turn line/column problems into CodeMirror diagnostics (clamped to the document). */
function toDiagnostics(state: EditorState, problems: readonly EditorProblem[]): Diagnostic[] {
  return problems.map((p) => {
    const lineNo = Math.min(Math.max(p.line ?? 1, 1), state.doc.lines);
    const line = state.doc.line(lineNo);
    const col = Math.max((p.column ?? 1) - 1, 0);
    const from = Math.min(line.from + col, line.to);
    const to = from < line.to ? Math.max(from + 1, line.to) : from;
    return { from, to, severity: p.severity ?? 'error', message: p.message, source: 'MiniJinja' };
  });
}

/**
 * A CodeMirror 6 editor: line numbers, bracket matching, search (Ctrl/Cmd+F), undo history,
 * folding, and problems marked in the gutter. `value` is controlled: outside changes replace the
 * document, the user's edits come back through `onChange`.
 */
export function CodeEditor(props: {
  value: string;
  onChange?: (value: string) => void;
  language: CodeLanguage;
  label: string;
  problems?: readonly EditorProblem[];
  readOnly?: boolean;
  placeholder?: string;
  minHeight?: number;
  testId?: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChange = useRef(props.onChange);
  onChange.current = props.onChange;
  const lang = useRef(new Compartment());
  const ro = useRef(new Compartment());

  // biome-ignore lint/correctness/useExhaustiveDependencies: the editor is made once; later props are applied by the effects below
  useEffect(() => {
    const state = EditorState.create({
      doc: props.value,
      extensions: [
        lineNumbers(),
        foldGutter(),
        lintGutter(),
        highlightActiveLineGutter(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        closeBrackets(),
        autocompletion(),
        highlightActiveLine(),
        highlightSelectionMatches(),
        search({ top: false }),
        keymap.of([
          ...closeBracketsKeymap,
          ...defaultKeymap,
          ...searchKeymap,
          ...historyKeymap,
          ...completionKeymap,
          ...lintKeymap,
          indentWithTab,
        ]),
        syntaxHighlighting(highlight),
        theme,
        lang.current.of(languageOf(props.language)),
        ro.current.of(EditorState.readOnly.of(props.readOnly ?? false)),
        EditorView.contentAttributes.of({ 'aria-label': props.label }),
        props.placeholder ? placeholderExt(props.placeholder) : [],
        EditorView.updateListener.of((u) => {
          if (u.docChanged) onChange.current?.(u.state.doc.toString());
        }),
      ],
    });
    // Inside a shadow root CodeMirror styles itself with a constructed stylesheet: the app's CSP
    // (style-src 'self') blocks the <style> element it would add to the document otherwise.
    const el = host.current!;
    const shadow = el.shadowRoot ?? el.attachShadow({ mode: 'open' });
    const parent = document.createElement('div');
    parent.style.height = '100%';
    shadow.replaceChildren(parent);
    const v = new EditorView({ state, parent, root: shadow });
    view.current = v;
    return () => {
      v.destroy();
      parent.remove();
      view.current = null;
    };
  }, []);

  useEffect(() => {
    const v = view.current;
    if (!v) return;
    const current = v.state.doc.toString();
    if (current !== props.value) {
      v.dispatch({ changes: { from: 0, to: current.length, insert: props.value } });
    }
  }, [props.value]);

  useEffect(() => {
    view.current?.dispatch({ effects: lang.current.reconfigure(languageOf(props.language)) });
  }, [props.language]);

  useEffect(() => {
    view.current?.dispatch({
      effects: ro.current.reconfigure(EditorState.readOnly.of(props.readOnly ?? false)),
    });
  }, [props.readOnly]);

  // Re-applied after the document changes too, so a reply for the edited text marks it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: props.value is a deliberate trigger
  useEffect(() => {
    const v = view.current;
    if (!v || props.language === 'json') return;
    v.dispatch(setDiagnostics(v.state, toDiagnostics(v.state, props.problems ?? [])));
  }, [props.problems, props.value, props.language]);

  return (
    <div
      ref={host}
      className="sc-editor"
      data-testid={props.testId}
      style={props.minHeight ? { minHeight: props.minHeight } : undefined}
    />
  );
}
