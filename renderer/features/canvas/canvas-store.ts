import { createStore, type StoreApi } from 'zustand/vanilla';
import type { AppErrorData } from '../../../electron/contract/errors.js';
import type { PrefStorage } from '../settings/settings-store.js';
import type { CanvasDoc } from './canvas-docs.js';

/** The canvas beside the chat: the document shown (or being loaded), and the panel's width. */
export interface CanvasState {
  doc: CanvasDoc | null;
  /** A file being fetched (its name), before it can be shown. */
  loading: string | null;
  error: AppErrorData | null;
  /** The panel's width in pixels once the reader resized it; null: the default share. */
  width: number | null;
  /** Rendered (Markdown, table) or the text as it is. */
  view: 'rendered' | 'source';
}

/** Canvas events. */
export type CanvasEvent =
  | { type: 'canvas/opened'; doc: CanvasDoc }
  | { type: 'canvas/loading'; name: string }
  | { type: 'canvas/failed'; name: string; error: AppErrorData }
  | { type: 'canvas/closed' }
  | { type: 'canvas/resized'; width: number | null }
  | { type: 'canvas/view-set'; view: CanvasState['view'] };

/** The canvas before anything is opened. */
export const initialCanvasState: CanvasState = {
  doc: null,
  loading: null,
  error: null,
  width: null,
  view: 'rendered',
};

/** Narrowest and widest the reader may make the panel (the chat keeps the rest; CSS caps it too). */
export const CANVAS_MIN_WIDTH = 320;
export const CANVAS_MAX_WIDTH = 1400;

/** Pure transitions of the canvas; a file that arrives after another was opened is dropped. */
export function canvasReducer(s: CanvasState, e: CanvasEvent): CanvasState {
  switch (e.type) {
    case 'canvas/opened':
      return { ...s, doc: e.doc, loading: null, error: null, view: 'rendered' };
    case 'canvas/loading':
      return { ...s, doc: null, loading: e.name, error: null };
    case 'canvas/failed':
      return s.loading === e.name ? { ...s, loading: null, error: e.error } : s;
    case 'canvas/closed':
      return { ...s, doc: null, loading: null, error: null };
    case 'canvas/resized':
      return {
        ...s,
        width:
          e.width === null
            ? null
            : Math.round(Math.min(CANVAS_MAX_WIDTH, Math.max(CANVAS_MIN_WIDTH, e.width))),
      };
    case 'canvas/view-set':
      return { ...s, view: e.view };
  }
}

/** The canvas with its actions. */
export interface CanvasStore extends CanvasState {
  open(doc: CanvasDoc): void;
  /** Fetch a file (a script's output), then show it; the panel says it is loading meanwhile. */
  openLoaded(name: string, load: () => Promise<CanvasDoc>): Promise<void>;
  close(): void;
  resize(width: number | null): void;
  setView(view: CanvasState['view']): void;
}

const WIDTH_KEY = 'skilldesk.canvasWidth';

/** The width the reader last gave the panel, if `storage` holds a sensible one. */
function readWidth(storage: PrefStorage | null): number | null {
  try {
    const n = Number(storage?.getItem(WIDTH_KEY) ?? '');
    return Number.isFinite(n) && n >= CANVAS_MIN_WIDTH && n <= CANVAS_MAX_WIDTH ? n : null;
  } catch {
    return null;
  }
}

/** Create the canvas store; `storage` remembers the panel's width across reloads. */
export function createCanvasStore(storage: PrefStorage | null = null): StoreApi<CanvasStore> {
  return createStore<CanvasStore>()((set, get) => {
    const dispatch = (e: CanvasEvent) => set((s) => canvasReducer(s, e));
    return {
      ...initialCanvasState,
      width: readWidth(storage),
      open: (doc) => dispatch({ type: 'canvas/opened', doc }),
      async openLoaded(name, load) {
        dispatch({ type: 'canvas/loading', name });
        try {
          const doc = await load();
          if (get().loading === name) dispatch({ type: 'canvas/opened', doc });
        } catch (e) {
          const error =
            e && typeof e === 'object' && 'code' in e && 'message' in e
              ? { code: (e as AppErrorData).code, message: String((e as AppErrorData).message) }
              : { code: 'INTERNAL' as const, message: String(e) };
          dispatch({ type: 'canvas/failed', name, error });
        }
      },
      close: () => dispatch({ type: 'canvas/closed' }),
      resize(width) {
        dispatch({ type: 'canvas/resized', width });
        try {
          storage?.setItem(WIDTH_KEY, String(get().width ?? ''));
        } catch {
          // A refused storage keeps the width for this page only.
        }
      },
      setView: (view) => dispatch({ type: 'canvas/view-set', view }),
    };
  });
}
