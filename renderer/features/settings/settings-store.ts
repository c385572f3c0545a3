import { createStore, type StoreApi } from 'zustand/vanilla';
import type { AppInfoRes } from '../../../electron/contract/app.js';
import { AppError, type AppErrorData } from '../../../electron/contract/errors.js';
import type { Client } from '../../bridge/client.js';

/** The colour theme: follow the OS, or force one. */
export type ThemePref = 'system' | 'light' | 'dark';
export const THEME_PREFS: readonly ThemePref[] = ['system', 'light', 'dark'];

/** Settings state. */
export interface SettingsState {
  theme: ThemePref;
  info: {
    status: 'idle' | 'loading' | 'ready' | 'error';
    value: AppInfoRes | null;
    error: AppErrorData | null;
  };
}

/** Settings events. */
export type SettingsEvent =
  | { type: 'theme/changed'; theme: ThemePref }
  | { type: 'info/requested' }
  | { type: 'info/loaded'; info: AppInfoRes }
  | { type: 'info/failed'; error: AppErrorData };

/** Pure transitions of the settings state. */
export function settingsReducer(s: SettingsState, e: SettingsEvent): SettingsState {
  switch (e.type) {
    case 'theme/changed':
      return { ...s, theme: e.theme };
    case 'info/requested':
      return { ...s, info: { ...s.info, status: 'loading', error: null } };
    case 'info/loaded':
      return { ...s, info: { status: 'ready', value: e.info, error: null } };
    case 'info/failed':
      return { ...s, info: { ...s.info, status: 'error', error: e.error } };
  }
}

/** Where the theme choice is remembered (localStorage in the app). */
export interface PrefStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

const THEME_KEY = 'skilldesk.theme';

/** Read the remembered theme (unknown values fall back to system). */
export function readTheme(storage: PrefStorage | null): ThemePref {
  const v = storage?.getItem(THEME_KEY);
  return v === 'light' || v === 'dark' || v === 'system' ? v : 'system';
}

/** Apply a theme to the document: `data-theme` only when forced, so CSS follows the OS otherwise. */
export function applyTheme(theme: ThemePref, root: HTMLElement): void {
  const next = theme === 'system' ? undefined : theme;
  if (root.dataset.theme === next) return;
  withoutTransitions(root);
  if (next === undefined) delete root.dataset.theme;
  else root.dataset.theme = next;
}

/**
 * Turn CSS transitions off while the colours change (a theme switch, or the OS going dark), so
 * no button shows dark text on a background still fading from the old theme.
 */
export function withoutTransitions(root: HTMLElement): void {
  root.classList.add('theme-changing');
  const win = root.ownerDocument.defaultView;
  const later = win?.requestAnimationFrame?.bind(win) ?? ((cb: () => void) => setTimeout(cb, 16));
  later(() => later(() => root.classList.remove('theme-changing')));
}

/** Follow the OS's light/dark switch without transitions; returns the function that stops. */
export function watchSystemTheme(root: HTMLElement): () => void {
  const media = root.ownerDocument.defaultView?.matchMedia?.('(prefers-color-scheme: dark)');
  if (!media) return () => {};
  const onChange = () => withoutTransitions(root);
  media.addEventListener('change', onChange);
  return () => media.removeEventListener('change', onChange);
}

/** Settings with their actions. */
export interface SettingsStore extends SettingsState {
  setTheme(theme: ThemePref): void;
  loadInfo(): Promise<void>;
}

/** Create the settings store. */
export function createSettingsStore(client: Client, storage: PrefStorage | null): StoreApi<SettingsStore> {
  return createStore<SettingsStore>()((set) => {
    const dispatch = (e: SettingsEvent) => set((s) => settingsReducer(s, e));
    return {
      theme: readTheme(storage),
      info: { status: 'idle', value: null, error: null },
      setTheme(theme) {
        try {
          storage?.setItem(THEME_KEY, theme);
        } catch {
          // Private windows may refuse storage; the choice still applies for this session.
        }
        dispatch({ type: 'theme/changed', theme });
      },
      async loadInfo() {
        dispatch({ type: 'info/requested' });
        try {
          dispatch({ type: 'info/loaded', info: await client.invoke('app/info', {}) });
        } catch (e) {
          const error =
            e instanceof AppError ? e.toData() : { code: 'INTERNAL' as const, message: String(e) };
          dispatch({ type: 'info/failed', error });
        }
      },
    };
  });
}
