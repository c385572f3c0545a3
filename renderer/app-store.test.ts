import { describe, expect, it } from 'vitest';
import { createAppStore } from './app-store.js';

function memoryStorage() {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) };
}

describe('app store', () => {
  it('folds the sidebar and remembers it for the next start', () => {
    const storage = memoryStorage();
    const app = createAppStore('chat', storage);
    expect(app.getState().sidebarCollapsed).toBe(false);
    app.getState().toggleSidebar();
    expect(app.getState().sidebarCollapsed).toBe(true);
    expect(createAppStore('chat', storage).getState().sidebarCollapsed).toBe(true);
    app.getState().toggleSidebar();
    expect(createAppStore('chat', storage).getState().sidebarCollapsed).toBe(false);
  });

  it('starts unfolded when the storage is refused', () => {
    const refusing = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('denied');
      },
    };
    const app = createAppStore('chat', refusing);
    expect(app.getState().sidebarCollapsed).toBe(false);
    app.getState().toggleSidebar();
    expect(app.getState().sidebarCollapsed).toBe(true);
  });

  it('opens "New skill with AI" in the Composer from any view', () => {
    const app = createAppStore('skills');
    app.getState().startNewWithAi();
    expect(app.getState()).toMatchObject({ view: 'composer', newWithAi: true });
    app.getState().closeNewWithAi();
    expect(app.getState()).toMatchObject({ view: 'composer', newWithAi: false });
  });
});
