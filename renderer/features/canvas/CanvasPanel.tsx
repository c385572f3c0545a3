import { useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import { useStores } from '../../stores.js';
import { downloadBlob, saveBlobTo } from '../../ui/download.js';
import { Icon } from '../../ui/Icon.js';
import { Markdown } from '../../ui/Markdown.js';
import { useImageUrl } from '../chat/Message.js';
import { type CanvasDoc, docText, fenced, isParquet, MAX_CANVAS_CHARS, mediaTypeOf } from './canvas-docs.js';
import { CANVAS_MAX_WIDTH, CANVAS_MIN_WIDTH } from './canvas-store.js';
import { parseCsv } from './csv.js';
import { type ParquetTable, readParquet } from './parquet.js';
import './canvas.css';

/** Rows of a CSV shown as a table; the download has them all. */
const MAX_TABLE_ROWS = 1000;
/** How far one arrow key press moves the panel's edge. */
const RESIZE_STEP = 32;

function base64Blob(data: string, type: string): Blob {
  return new Blob([Uint8Array.from(atob(data), (c) => c.charCodeAt(0))], { type });
}

function docBlob(doc: CanvasDoc): Blob {
  const c = doc.content;
  const type = mediaTypeOf(doc);
  return c.kind === 'image' || c.kind === 'binary' ? base64Blob(c.data, type) : new Blob([c.text], { type });
}

/** Save the document under its file name (a blob URL on this origin: nothing leaves the app). */
function download(doc: CanvasDoc): void {
  downloadBlob(doc.fileName, docBlob(doc));
}

/** Put the document on the clipboard: its text, or a PNG image (the one image type clipboards take). */
async function copy(doc: CanvasDoc): Promise<void> {
  if (!navigator.clipboard) throw new Error('The clipboard is not available here; use Download.');
  const text = docText(doc);
  if (text !== null) return navigator.clipboard.writeText(text);
  const c = doc.content;
  if (c.kind === 'image' && c.media_type === 'image/png' && typeof ClipboardItem !== 'undefined')
    return navigator.clipboard.write([new ClipboardItem({ 'image/png': base64Blob(c.data, 'image/png') })]);
  throw new Error('Only text and PNG images can be copied; use Download.');
}

/** Rows under a header as the canvas's table, with how many there are and what went wrong. */
function TableView({
  header,
  rows,
  total,
  problems = [],
  kind,
}: {
  header: string[];
  rows: string[][];
  total: number;
  problems?: string[];
  kind: string;
}) {
  if (header.length === 0) return <p className="muted">This {kind} file is empty.</p>;
  return (
    <div className="canvas__csv">
      <p className="canvas__note">
        {total.toLocaleString('en-US')} row{total === 1 ? '' : 's'} · {header.length} column
        {header.length === 1 ? '' : 's'}
        {rows.length < total
          ? ` · the first ${rows.length.toLocaleString('en-US')} are shown; Download has them all`
          : ''}
      </p>
      {problems.length > 0 && (
        <ul className="canvas__problems">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      <div className="md">
        <div className="md-table canvas__table">
          <table>
            <thead>
              <tr>
                {header.map((h, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: headers may repeat
                  <th key={i} scope="col">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity of their own
                <tr key={i}>
                  {r.map((v, j) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: cells are positional
                    <td key={j}>{v}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </div>
  );
}

function CsvView({ text }: { text: string }) {
  const t = useMemo(() => parseCsv(text, { maxRows: MAX_TABLE_ROWS }), [text]);
  return <TableView {...t} kind="CSV" />;
}

/**
 * A Parquet file (what `df.to_parquet` writes) as the same table, read in the renderer with
 * hyparquet; a file it cannot read says why beside Download.
 */
function ParquetView({ doc, bytes }: { doc: CanvasDoc; bytes: Uint8Array }) {
  const [state, setState] = useState<{ table?: ParquetTable; error?: string }>({});
  useEffect(() => {
    let live = true;
    setState({});
    readParquet(bytes, { maxRows: MAX_TABLE_ROWS }).then(
      (table) => live && setState({ table }),
      (e: unknown) => live && setState({ error: e instanceof Error ? e.message : String(e) }),
    );
    return () => {
      live = false;
    };
  }, [bytes]);
  if (state.table) return <TableView {...state.table} kind="Parquet" />;
  if (state.error)
    return (
      <div className="canvas__empty">
        <Icon name="file" size={28} />
        <p>
          {doc.fileName} is a Parquet file this view cannot read ({state.error}). Download it to open it with
          another app.
        </p>
        <button type="button" className="btn btn--primary" onClick={() => download(doc)}>
          <Icon name="download" /> Download
        </button>
      </div>
    );
  return <p className="muted">Reading the table…</p>;
}

function ImageView({ media_type, data, alt }: { media_type: string; data: string; alt: string }) {
  const src = useImageUrl(media_type, data);
  return src ? <img className="canvas__image" src={src} alt={alt} /> : null;
}

/** Whether the app is showing its dark theme (forced in Settings, or following the OS). */
function isDark(): boolean {
  const forced = document.documentElement.dataset.theme;
  if (forced) return forced === 'dark';
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false;
}

/** A Vega-Lite chart file, drawn by vega-embed loaded only now (the chat's bundle stays small). */
function ChartView({ text }: { text: string }) {
  const ref = useRef<HTMLDivElement>(null);
  // The chart is drawn in the theme shown: a change of the OS's scheme draws it again.
  const [dark, setDark] = useState(isDark);
  useEffect(() => {
    const media = window.matchMedia?.('(prefers-color-scheme: dark)');
    if (!media) return;
    const onChange = () => setDark(isDark());
    media.addEventListener('change', onChange);
    return () => media.removeEventListener('change', onChange);
  }, []);
  const [state, setState] = useState<{ error: string | null; removed: number; drawn: boolean }>({
    error: null,
    removed: 0,
    drawn: false,
  });
  useEffect(() => {
    let live = true;
    let done: { finalize(): void } | null = null;
    const el = ref.current;
    if (!el) return;
    import('./vega-chart.js')
      .then((m) => m.drawChart(el, text, dark))
      .then(
        (chart) => {
          done = chart;
          if (live) setState({ error: null, removed: chart.removed, drawn: true });
          else chart.finalize();
        },
        (e: unknown) => {
          if (live) setState({ error: (e as Error).message ?? String(e), removed: 0, drawn: false });
        },
      );
    return () => {
      live = false;
      done?.finalize();
    };
  }, [text, dark]);
  return (
    <div className="canvas__chart-wrap">
      {state.error && (
        <p className="canvas__note" role="alert">
          This chart cannot be drawn: {state.error} Switch to Source to read the spec.
        </p>
      )}
      {state.removed > 0 && (
        <p className="canvas__note">
          Links and data URLs were left out: a chart here shows only the data in its file.
        </p>
      )}
      {!state.drawn && !state.error && <p className="muted">Drawing the chart…</p>}
      <div ref={ref} className="canvas__chart" aria-label="Chart" role="img" />
    </div>
  );
}

/** The document's body as the reader chose to see it (rendered, or its text as it is). */
function Body({ doc, view }: { doc: CanvasDoc; view: 'rendered' | 'source' }) {
  const c = doc.content;
  const binary = c.kind === 'binary' ? c.data : null;
  // A Parquet file is known by its bytes (PAR1 at both ends), whatever its name or media type.
  const parquet = useMemo(() => {
    if (binary === null) return null;
    const bytes = Uint8Array.from(atob(binary), (ch) => ch.charCodeAt(0));
    return isParquet(bytes) ? bytes : null;
  }, [binary]);
  if (c.kind === 'image') return <ImageView media_type={c.media_type} data={c.data} alt={doc.title} />;
  if (c.kind === 'binary' && parquet) return <ParquetView doc={doc} bytes={parquet} />;
  if (c.kind === 'binary')
    return (
      <div className="canvas__empty">
        <Icon name="file" size={28} />
        <p>
          {doc.fileName} ({c.media_type}) cannot be shown here. Download it to open it with another app.
        </p>
        <button type="button" className="btn btn--primary" onClick={() => download(doc)}>
          <Icon name="download" /> Download
        </button>
      </div>
    );
  const cut = c.text.length > MAX_CANVAS_CHARS;
  const text = cut ? c.text.slice(0, MAX_CANVAS_CHARS) : c.text;
  const note = cut && (
    <p className="canvas__note">
      The first {MAX_CANVAS_CHARS.toLocaleString('en-US')} characters are shown; Download has all{' '}
      {c.text.length.toLocaleString('en-US')}.
    </p>
  );
  if (c.kind === 'csv' && view === 'rendered') return <CsvView text={text} />;
  if (c.kind === 'chart' && view === 'rendered') return <ChartView text={c.text} />;
  if (c.kind === 'markdown' && view === 'rendered')
    return (
      <>
        {note}
        <Markdown text={text} />
      </>
    );
  const lang =
    c.kind === 'code'
      ? c.lang
      : c.kind === 'markdown'
        ? 'markdown'
        : c.kind === 'chart'
          ? 'json'
          : 'plaintext';
  return (
    <>
      {note}
      <Markdown text={fenced(text, lang)} />
    </>
  );
}

/** The panel's draggable edge: pointer drag, or ←/→ with the keyboard (Home: the default width). */
function ResizeHandle(props: { panel: React.RefObject<HTMLElement | null>; width: number | null }) {
  const { canvas } = useStores();
  const resize = (w: number | null) => canvas.getState().resize(w);
  const current = () => props.width ?? props.panel.current?.getBoundingClientRect().width ?? 480;
  return (
    // biome-ignore lint/a11y/useSemanticElements: a focusable window splitter (WAI-ARIA) has no HTML element; <hr> cannot take focus or keys
    <div
      className="canvas__resize"
      role="separator"
      aria-orientation="vertical"
      aria-label="Resize the canvas"
      aria-valuemin={CANVAS_MIN_WIDTH}
      aria-valuemax={CANVAS_MAX_WIDTH}
      aria-valuenow={Math.round(current())}
      tabIndex={0}
      title="Drag, or use ← and →, to resize (double-click: default width)"
      onDoubleClick={() => resize(null)}
      onPointerDown={(e) => {
        const panel = props.panel.current;
        if (!panel || e.button !== 0) return;
        e.preventDefault();
        const right = panel.getBoundingClientRect().right;
        const el = e.currentTarget;
        el.setPointerCapture(e.pointerId);
        const move = (ev: PointerEvent) => resize(right - ev.clientX);
        const up = () => {
          el.removeEventListener('pointermove', move);
          el.removeEventListener('pointerup', up);
          el.removeEventListener('pointercancel', up);
        };
        el.addEventListener('pointermove', move);
        el.addEventListener('pointerup', up);
        el.addEventListener('pointercancel', up);
      }}
      onKeyDown={(e) => {
        if (e.key === 'ArrowLeft') resize(current() + RESIZE_STEP);
        else if (e.key === 'ArrowRight') resize(current() - RESIZE_STEP);
        else if (e.key === 'Home') resize(null);
        else return;
        e.preventDefault();
      }}
    />
  );
}

/**
 * The canvas: a long reply, a tool's result or a file beside the chat — Markdown rendered as the
 * chat renders it (sanitised), code highlighted, CSV as a table, images — with Copy, Download and
 * Close (Esc). Focus moves into it when it opens and back to what opened it when it closes.
 */
export function CanvasPanel(props: { streaming: boolean }) {
  const { canvas } = useStores();
  const s = useStore(
    canvas,
    useShallow((x) => ({ doc: x.doc, loading: x.loading, error: x.error, width: x.width, view: x.view })),
  );
  const open = s.doc !== null || s.loading !== null || s.error !== null;
  const panel = useRef<HTMLElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const [copied, setCopied] = useState<string | null>(null);

  // Focus comes in on open (remembering where from) and goes back on close.
  useEffect(() => {
    if (!open) return;
    const active = document.activeElement;
    if (active instanceof HTMLElement && !panel.current?.contains(active)) opener.current = active;
    closeRef.current?.focus();
    return () => {
      const back = opener.current;
      opener.current = null;
      if (back?.isConnected) back.focus();
    };
  }, [open]);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(null), 1800);
    return () => clearTimeout(t);
  }, [copied]);
  // Esc inside the canvas closes it (the panel's own handler, before the chat's, which would stop
  // a reply). From elsewhere in the chat too, unless Esc belongs to something else first: a reply
  // being written (Esc stops it), a dialog or drawer, or text being typed.
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      const target = e.target as HTMLElement | null;
      if (target && panel.current?.contains(target)) return;
      if (props.streaming || document.querySelector('.drawer, .scrim, dialog[open]')) return;
      if (target && (target.tagName === 'TEXTAREA' || target.tagName === 'INPUT')) return;
      e.preventDefault();
      canvas.getState().close();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open, props.streaming, canvas]);

  if (!open) return null;
  const doc = s.doc;
  const c = doc?.content;
  const switchable = c?.kind === 'markdown' || c?.kind === 'csv' || c?.kind === 'chart';
  const style = s.width !== null ? ({ '--canvas-w': `${s.width}px` } as React.CSSProperties) : undefined;
  return (
    <aside
      ref={panel}
      className="canvas"
      aria-label={`Canvas: ${doc?.title ?? s.loading ?? 'file'}`}
      style={style}
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return;
        e.preventDefault();
        e.stopPropagation();
        canvas.getState().close();
      }}
    >
      <ResizeHandle panel={panel} width={s.width} />
      <header className="canvas__head">
        <Icon name="panelRight" />
        <div className="canvas__titles">
          <h2 className="canvas__title" title={doc?.fileName}>
            {doc?.title ?? s.loading ?? 'File'}
          </h2>
          {doc && <span className="canvas__sub">{doc.source}</span>}
        </div>
        <button
          ref={closeRef}
          type="button"
          className="btn btn--icon"
          aria-label="Close canvas"
          title="Close (Esc)"
          onClick={() => canvas.getState().close()}
        >
          <Icon name="close" />
        </button>
      </header>
      {doc && (
        <div className="canvas__bar">
          {switchable && (
            // biome-ignore lint/a11y/useSemanticElements: a two-button segmented switch, as the result view's
            <span className="segmented segmented--small" role="group" aria-label="Canvas view">
              <button
                type="button"
                aria-pressed={s.view === 'rendered'}
                className={s.view === 'rendered' ? 'is-on' : ''}
                onClick={() => canvas.getState().setView('rendered')}
              >
                {c?.kind === 'csv' ? 'Table' : c?.kind === 'chart' ? 'Chart' : 'Rendered'}
              </button>
              <button
                type="button"
                aria-pressed={s.view === 'source'}
                className={s.view === 'source' ? 'is-on' : ''}
                onClick={() => canvas.getState().setView('source')}
              >
                Source
              </button>
            </span>
          )}
          <span className="canvas__spacer" />
          <span className="canvas__status" role="status">
            {copied}
          </span>
          {c?.kind !== 'binary' && (
            <button
              type="button"
              className="btn btn--small"
              onClick={() =>
                copy(doc).then(
                  () => setCopied('Copied'),
                  (e: unknown) => setCopied(e instanceof Error ? e.message : String(e)),
                )
              }
            >
              <Icon name="copy" /> Copy
            </button>
          )}
          <button type="button" className="btn btn--small" onClick={() => download(doc)}>
            <Icon name="download" /> Download
          </button>
          <button
            type="button"
            className="btn btn--small"
            title={`Choose where to save ${doc.fileName}`}
            onClick={() =>
              saveBlobTo(doc.fileName, async () => docBlob(doc)).catch((e: unknown) =>
                setCopied(`Couldn’t save: ${e instanceof Error ? e.message : String(e)}`),
              )
            }
          >
            Save to…
          </button>
        </div>
      )}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the scrolling body is reached with Tab so the keyboard can scroll it */}
      <section className="canvas__body" tabIndex={0} aria-label="Canvas content">
        {s.error ? (
          <div className="callout callout--error" role="alert">
            <Icon name="alert" />
            <p>{s.error.message}</p>
          </div>
        ) : s.loading ? (
          <div className="skeleton skeleton--block" role="status" aria-label={`Loading ${s.loading}`} />
        ) : doc ? (
          <Body doc={doc} view={s.view} />
        ) : null}
      </section>
    </aside>
  );
}
