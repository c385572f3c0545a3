import { createStore, type StoreApi } from 'zustand/vanilla';
import type { PrefStorage } from './features/settings/settings-store.js';

/** The app's top-level views (sidebar entries). */
export type View = 'chat' | 'skills' | 'composer' | 'settings' | 'traces';
export const VIEWS: readonly View[] = ['chat', 'skills', 'composer', 'settings', 'traces'];

/** Navigation state shared by the features. */
export interface AppState {
  view: View;
  /** Bumped to ask the Skills view to focus its search box. */
  focusSearchTick: number;
  /** Bumped to ask the chat to focus its composer. */
  focusComposerTick: number;
  /** The sidebar folded to a rail of icons (remembered across reloads). */
  sidebarCollapsed: boolean;
  /** The Composer's "New skill with AI" dialog is open (asked for from any view). */
  newWithAi: boolean;
  navigate(view: View): void;
  toggleSidebar(): void;
  /** Go to the Composer and open "New skill with AI". */
  startNewWithAi(): void;
  closeNewWithAi(): void;
  focusSearch(): void;
  focusComposer(): void;
}

const SIDEBAR_KEY = 'skilldesk.sidebar';

/** Create the navigation store; `storage` remembers whether the sidebar is folded. */
export function createAppStore(
  initial: View = 'chat',
  storage: PrefStorage | null = null,
): StoreApi<AppState> {
  let collapsed = false;
  try {
    collapsed = storage?.getItem(SIDEBAR_KEY) === 'collapsed';
  } catch {
    collapsed = false;
  }
  return createStore<AppState>()((set, get) => ({
    view: initial,
    focusSearchTick: 0,
    focusComposerTick: 0,
    sidebarCollapsed: collapsed,
    newWithAi: false,
    navigate: (view) => set({ view }),
    startNewWithAi: () => set({ view: 'composer', newWithAi: true }),
    closeNewWithAi: () => set({ newWithAi: false }),
    toggleSidebar() {
      const next = !get().sidebarCollapsed;
      set({ sidebarCollapsed: next });
      try {
        storage?.setItem(SIDEBAR_KEY, next ? 'collapsed' : 'open');
      } catch {
        // A refused storage folds the sidebar for this page only.
      }
    },
    focusComposer: () => set((s) => ({ view: 'chat', focusComposerTick: s.focusComposerTick + 1 })),
    focusSearch: () => set((s) => ({ view: 'skills', focusSearchTick: s.focusSearchTick + 1 })),
  }));
}
