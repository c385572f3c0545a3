// @vitest-environment jsdom
// The canvas: CSV read by Papa Parse, what each reply, result or file becomes, the store's
// transitions, and the panel itself (sanitised Markdown, a CSV table, Esc, focus back).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createStores, StoresProvider } from '../../stores.js';
import { inProcessClient } from '../../test-support.js';
import { CanvasPanel } from './CanvasPanel.js';
import {
  type CanvasDoc,
  docFromFile,
  docFromReply,
  docFromResult,
  docFromText,
  fenced,
  mediaTypeOf,
  resultLength,
} from './canvas-docs.js';
import { canvasReducer, createCanvasStore, initialCanvasState } from './canvas-store.js';
import { parseCsv, toCsv } from './csv.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const b64 = (s: string | Uint8Array) => Buffer.from(s).toString('base64');
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

describe('parseCsv', () => {
  it('reads quoted fields holding commas, quotes and line breaks', () => {
    const t = parseCsv('name,notes\n"Smith, J.","said ""hi""\nthen left"\nLee,ok\n');
    expect(t.header).toEqual(['name', 'notes']);
    expect(t.rows).toEqual([
      ['Smith, J.', 'said "hi"\nthen left'],
      ['Lee', 'ok'],
    ]);
    expect(t).toMatchObject({ total: 2, delimiter: ',', problems: [] });
  });

  it('finds a semicolon or tab delimiter and drops a byte-order mark', () => {
    expect(parseCsv('\uFEFFa;b\n1;2').header).toEqual(['a', 'b']);
    const tsv = parseCsv('x\ty\n1\t2\n');
    expect(tsv.delimiter).toBe('\t');
    expect(tsv.rows).toEqual([['1', '2']]);
  });

  it('pads short rows and names the columns a long row adds, so no cell goes missing', () => {
    const t = parseCsv('a,b\n1\n1,2,3\n');
    expect(t.header).toEqual(['a', 'b', 'column 3']);
    expect(t.rows).toEqual([
      ['1', '', ''],
      ['1', '2', '3'],
    ]);
  });

  it('shows at most maxRows rows and counts them all', () => {
    const text = ['n', ...Array.from({ length: 30 }, (_, i) => String(i))].join('\n');
    const t = parseCsv(text, { maxRows: 10 });
    expect(t.rows).toHaveLength(10);
    expect(t.total).toBe(30);
  });

  it('says what is wrong with a broken file', () => {
    const t = parseCsv('a,b\n"open,2\n');
    expect(t.problems.join(' ')).toMatch(/quote/i);
  });

  it('writes rows of objects back as CSV', () => {
    const csv = toCsv([
      { skill: 'Summarize', score: 0.9, tags: null },
      { skill: 'Say "hi", twice', score: 1, tags: null },
    ]);
    expect(parseCsv(csv).rows).toEqual([
      ['Summarize', '0.9', ''],
      ['Say "hi", twice', '1', ''],
    ]);
  });
});

describe('canvas documents', () => {
  it('shows a text file by its extension', () => {
    expect(docFromText('notes.md', '# Hi', 's').content).toEqual({ kind: 'markdown', text: '# Hi' });
    expect(docFromText('data.csv', 'a,b', 's').content.kind).toBe('csv');
    expect(docFromText('x.py', 'print(1)', 's').content).toEqual({
      kind: 'code',
      text: 'print(1)',
      lang: 'python',
    });
    expect(docFromText('README', 'plain', 's').content).toMatchObject({ kind: 'code', lang: 'plaintext' });
  });

  it('shows a file by its bytes: images as images, UTF-8 as text, anything else for download', () => {
    expect(docFromFile('plot.png', 'image/png', b64(PNG), 's').content).toEqual({
      kind: 'image',
      media_type: 'image/png',
      data: b64(PNG),
    });
    const csv = docFromFile('out/table.csv', 'text/csv', b64('a,b\n1,2'), 's');
    expect(csv.content).toEqual({ kind: 'csv', text: 'a,b\n1,2' });
    const zip = docFromFile(
      'out/a.zip',
      'application/zip',
      b64(new Uint8Array([0x50, 0x4b, 3, 4, 0, 0xff])),
      's',
    );
    expect(zip.content.kind).toBe('binary');
    expect(mediaTypeOf(zip)).toBe('application/zip');
    // A file saying it is an image but holding something else is not shown as one.
    expect(docFromFile('fake.png', 'image/png', b64('not an image'), 's').content.kind).toBe('code');
  });

  it('names a reply after its heading and its model', () => {
    const d = docFromReply('# Trip plan: Lisbon!\n\nDay 1…', {
      chatTitle: 'Trip plan: Lisbon!',
      model: 'gpt-4.1',
    });
    expect(d).toMatchObject({
      title: 'Trip plan: Lisbon!',
      fileName: 'trip-plan-lisbon.md',
      source: 'Reply · gpt-4.1',
    });
    expect(docFromReply('text', {}).fileName).toBe('reply.md');
  });

  it('reads a result as its text, its rows as a table, or else as JSON', () => {
    expect(docFromResult({ text: '**done**' }, 'Echo').content).toEqual({
      kind: 'markdown',
      text: '**done**',
    });
    const run = {
      skill: 'Summarize',
      outputs: [{ artifact: 'Summary Prompt', kind: 'prompt_template', text: 'A summary.' }],
    };
    expect(docFromResult(run, 'Summarize')).toMatchObject({
      title: 'Summarize',
      fileName: 'summarize.md',
      source: 'Result of Summarize',
      content: { kind: 'markdown', text: 'A summary.' },
    });
    const rows = [
      { column: 'price', mean: 3.5 },
      { column: 'qty', mean: 12 },
    ];
    const table = docFromResult({ skill: 'Stats', outputs: [{ artifact: 'Compute', data: rows }] }, 'Stats');
    expect(table.fileName).toBe('stats.csv');
    expect(table.content).toEqual({ kind: 'csv', text: 'column,mean\r\nprice,3.5\r\nqty,12' });
    const script = docFromResult({ exit_code: 0, stdout: 'lines\n', stderr: '', files: [] }, 'Bench');
    expect(script.content).toEqual({ kind: 'markdown', text: 'lines\n' });
    const listed = docFromResult(
      { skills: [{ name: 'Summarize', tags: ['text', 'short'], when: undefined }] },
      'List skills',
    );
    expect(listed).toMatchObject({ fileName: 'list-skills.csv', content: { kind: 'csv' } });
    expect(parseCsv((listed.content as { text: string }).text).rows).toEqual([
      ['Summarize', 'text; short', ''],
    ]);
    const other = docFromResult({ nested: { a: [1, { b: 2 }] } }, 'Thing');
    expect(other.content).toMatchObject({ kind: 'code', lang: 'json' });
    expect(resultLength({ text: 'x'.repeat(700) })).toBe(700);
  });

  it('fences code so that backticks inside cannot close the fence', () => {
    const f = fenced('a ``` b ```` c', 'python');
    expect(f.startsWith('`````python\n')).toBe(true);
    expect(f.endsWith('\n`````')).toBe(true);
  });
});

describe('canvasReducer', () => {
  const doc: CanvasDoc = docFromText('a.md', '# A', 's');
  it('opens, switches view, resizes within bounds and closes', () => {
    let s = canvasReducer(initialCanvasState, { type: 'canvas/opened', doc });
    expect(s.doc).toBe(doc);
    s = canvasReducer(s, { type: 'canvas/view-set', view: 'source' });
    expect(s.view).toBe('source');
    expect(canvasReducer(s, { type: 'canvas/resized', width: 10 }).width).toBe(320);
    expect(canvasReducer(s, { type: 'canvas/resized', width: 9000 }).width).toBe(1400);
    expect(canvasReducer(s, { type: 'canvas/resized', width: 512.4 }).width).toBe(512);
    // A new document starts rendered.
    expect(canvasReducer(s, { type: 'canvas/opened', doc }).view).toBe('rendered');
    expect(canvasReducer(s, { type: 'canvas/closed' }).doc).toBeNull();
  });

  it('remembers the width across reloads, ignoring a value out of bounds', () => {
    const saved = new Map<string, string>();
    const storage = {
      getItem: (k: string) => saved.get(k) ?? null,
      setItem: (k: string, v: string) => void saved.set(k, v),
    };
    createCanvasStore(storage).getState().resize(640);
    expect(createCanvasStore(storage).getState().width).toBe(640);
    createCanvasStore(storage).getState().resize(null);
    expect(createCanvasStore(storage).getState().width).toBeNull();
    saved.set('skilldesk.canvasWidth', '99999');
    expect(createCanvasStore(storage).getState().width).toBeNull();
  });

  it('drops the failure of a file the reader has since moved away from', () => {
    const loading = canvasReducer(initialCanvasState, { type: 'canvas/loading', name: 'a.csv' });
    const other = canvasReducer(loading, { type: 'canvas/opened', doc });
    const late = canvasReducer(other, {
      type: 'canvas/failed',
      name: 'a.csv',
      error: { code: 'NOT_FOUND', message: 'gone' },
    });
    expect(late).toEqual(other);
    expect(
      canvasReducer(loading, {
        type: 'canvas/failed',
        name: 'a.csv',
        error: { code: 'NOT_FOUND', message: 'gone' },
      }).error?.message,
    ).toBe('gone');
  });
});

describe('CanvasPanel', () => {
  function mount() {
    const { client, host } = inProcessClient();
    cleanups.push(() => host.dispose());
    const stores = createStores(client);
    const el = document.createElement('div');
    document.body.append(el);
    const opener = document.createElement('button');
    document.body.append(opener);
    const root = createRoot(el);
    act(() =>
      root.render(
        <StoresProvider stores={stores}>
          <CanvasPanel streaming={false} />
        </StoresProvider>,
      ),
    );
    cleanups.push(() => {
      act(() => root.unmount());
      el.remove();
      opener.remove();
    });
    return { el, stores, opener };
  }

  it('renders a model’s Markdown without its raw HTML, and closes with Esc giving focus back', () => {
    const { el, stores, opener } = mount();
    opener.focus();
    const text =
      '# Report\n\n<img src=x onerror="window.hacked=1"><script>window.hacked=2</script>\n\n**bold** and <b>raw</b>';
    act(() => stores.canvas.getState().open(docFromReply(text, { chatTitle: 'Report' })));
    const panel = el.querySelector('aside.canvas')!;
    expect(panel.getAttribute('aria-label')).toBe('Canvas: Report');
    expect(panel.querySelector('strong')?.textContent).toBe('bold');
    expect(panel.querySelector('script, img, b')).toBeNull();
    expect((window as { hacked?: number }).hacked).toBeUndefined();
    expect(document.activeElement?.getAttribute('aria-label')).toBe('Close canvas');

    const source = [...panel.querySelectorAll('button')].find((b) => b.textContent === 'Source')!;
    act(() => source.click());
    expect(panel.querySelector('pre')?.textContent).toContain('<script>window.hacked=2</script>');
    expect(panel.querySelector('script')).toBeNull();

    act(() => {
      document.activeElement!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    });
    expect(el.querySelector('aside.canvas')).toBeNull();
    expect(document.activeElement).toBe(opener);
  });

  it('shows a CSV as a table with its size said', () => {
    const { el, stores } = mount();
    act(() =>
      stores.canvas
        .getState()
        .open(docFromText('sales.csv', 'region,total\nNorth,"1,200"\nSouth,800\n', 'file')),
    );
    expect([...el.querySelectorAll('th')].map((t) => t.textContent)).toEqual(['region', 'total']);
    expect([...el.querySelectorAll('td')].map((t) => t.textContent)).toEqual([
      'North',
      '1,200',
      'South',
      '800',
    ]);
    expect(el.textContent).toContain('2 rows · 2 columns');
    const sep = el.querySelector('[role="separator"]') as HTMLElement;
    act(() => {
      sep.focus();
      sep.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true }));
    });
    expect(stores.canvas.getState().width).not.toBeNull();
  });

  it('shows a Parquet file pandas wrote as a table, and a damaged one beside Download', async () => {
    const { el, stores } = mount();
    const bytes = readFileSync(join(import.meta.dirname, 'fixtures', 'sales.parquet'));
    act(() =>
      stores.canvas
        .getState()
        .open(docFromFile('sales.parquet', 'application/octet-stream', bytes.toString('base64'), 'file')),
    );
    await expect
      .poll(() => [...el.querySelectorAll('th')].map((t) => t.textContent))
      .toEqual(['region', 'amount', 'orders', 'day', 'note']);
    expect(el.querySelector('td')?.textContent).toBe('north');
    expect(el.textContent).toContain('3 rows · 5 columns');
    // PAR1 at both ends, nothing sensible between (and valid UTF-8: still not text): said in words, with Download.
    const broken = Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(64, 7), Buffer.from('PAR1')]);
    act(() =>
      stores.canvas.getState().open(docFromFile('broken.parquet', '', broken.toString('base64'), 'file')),
    );
    await expect
      .poll(() => el.textContent ?? '', { timeout: 3000 })
      .toContain('is a Parquet file this view cannot read');
    expect([...el.querySelectorAll('button')].some((b) => b.textContent?.includes('Download'))).toBe(true);
  });
});
