import { createStore, type StoreApi } from 'zustand/vanilla';

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
  navigate(view: View): void;
  focusSearch(): void;
  focusComposer(): void;
}

/** Create the navigation store. */
export function createAppStore(initial: View = 'chat'): StoreApi<AppState> {
  return createStore<AppState>()((set) => ({
    view: initial,
    focusSearchTick: 0,
    focusComposerTick: 0,
    navigate: (view) => set({ view }),
    focusComposer: () => set((s) => ({ view: 'chat', focusComposerTick: s.focusComposerTick + 1 })),
    focusSearch: () => set((s) => ({ view: 'skills', focusSearchTick: s.focusSearchTick + 1 })),
  }));
}
