// @vitest-environment jsdom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { isTable, ResultView, tableColumns } from './ResultView.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function show(value: unknown): HTMLElement {
  const el = document.createElement('div');
  document.body.append(el);
  const root = createRoot(el);
  act(() => root.render(<ResultView value={value} />));
  cleanups.push(() => {
    act(() => root.unmount());
    el.remove();
  });
  return el;
}

const button = (el: HTMLElement, name: string) =>
  [...el.querySelectorAll('button')].find((b) => b.textContent === name)!;

describe('ResultView', () => {
  it('renders a tool’s text as Markdown, and the raw JSON one click away', () => {
    const el = show({ text: '**Echo**: hello\n\n- one\n- two' });
    expect(el.querySelector('strong')?.textContent).toBe('Echo');
    expect(el.querySelectorAll('li')).toHaveLength(2);
    expect(el.textContent).not.toContain('"text"');
    act(() => button(el, 'JSON').click());
    expect(el.textContent).toContain('"text"');
    expect(button(el, 'JSON').getAttribute('aria-pressed')).toBe('true');
    act(() => button(el, 'Readable').click());
    expect(el.querySelector('strong')?.textContent).toBe('Echo');
  });

  it('lays out an array of objects as a table with every key as a column', () => {
    const rows = [
      { name: 'Summarize', score: 0.9 },
      { name: 'Translate', scope: 'account' },
    ];
    expect(isTable(rows)).toBe(true);
    expect(tableColumns(rows)).toEqual({ columns: ['name', 'score', 'scope'], more: 0 });
    const el = show({ matches: rows });
    expect([...el.querySelectorAll('th')].map((t) => t.textContent)).toEqual(['name', 'score', 'scope']);
    expect([...el.querySelectorAll('tbody tr')].map((r) => r.textContent)).toEqual([
      'Summarize0.9',
      'Translateaccount',
    ]);
    expect(el.querySelector('dt')?.textContent).toBe('matches');
  });

  it('shows a skill run’s outputs as labelled parts, text rendered and errors in words', () => {
    const el = show({
      skill: 'Summarize',
      outputs: [
        { artifact: 'Summary Prompt', ok: true, text: '# Done\n\nShort.' },
        { artifact: 'Check', ok: false, error: 'the sandbox timed out' },
      ],
    });
    expect(el.querySelector('h3')?.textContent).toBe('Done');
    expect(el.querySelector('.result__error')?.textContent).toBe('the sandbox timed out');
    expect([...el.querySelectorAll('.result__artifact')].map((h) => h.textContent)).toEqual([
      'Summary Prompt',
      'Check',
    ]);
    // A short one-line output is still its artifact's text, not a table cell.
    const short = show({
      skill: 'S',
      outputs: [{ artifact: 'P', kind: 'prompt_template', ok: true, text: 'Gist.' }],
    });
    expect(short.querySelector('table')).toBeNull();
    expect(short.querySelector('.result__artifact')?.textContent).toBe('P · prompt template');
  });

  it('keeps a huge table to its first rows and says so', () => {
    const rows = Array.from({ length: 120 }, (_, i) => ({ i }));
    const el = show(rows);
    expect(el.querySelectorAll('tbody tr')).toHaveLength(50);
    expect(el.textContent).toContain('First 50 of 120 rows.');
  });
});
