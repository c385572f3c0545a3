// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { inProcessClient } from '../../test-support.js';
import { applyTheme, createSettingsStore, readTheme, settingsReducer } from './settings-store.js';

function memoryStorage() {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) };
}

describe('settings', () => {
  it('remembers the theme and ignores junk', () => {
    const storage = memoryStorage();
    expect(readTheme(storage)).toBe('system');
    storage.setItem('skilldesk.theme', 'purple');
    expect(readTheme(storage)).toBe('system');
    const { client } = inProcessClient();
    const store = createSettingsStore(client, storage);
    store.getState().setTheme('dark');
    expect(store.getState().theme).toBe('dark');
    expect(readTheme(storage)).toBe('dark');
  });

  it('forces a theme on the document only when not following the system', () => {
    const root = document.documentElement;
    applyTheme('dark', root);
    expect(root.dataset.theme).toBe('dark');
    applyTheme('system', root);
    expect(root.dataset.theme).toBeUndefined();
  });

  it('switches colours without transitions, then gives them back', async () => {
    const root = document.documentElement;
    applyTheme('light', root);
    await vi.waitFor(() => expect(root.classList.contains('theme-changing')).toBe(false));
    applyTheme('dark', root);
    expect(root.classList.contains('theme-changing')).toBe(true);
    await vi.waitFor(() => expect(root.classList.contains('theme-changing')).toBe(false));
    applyTheme('dark', root); // no change, no flicker of the class
    expect(root.classList.contains('theme-changing')).toBe(false);
  });

  it('loads app info', async () => {
    const { client } = inProcessClient();
    const store = createSettingsStore(client, null);
    await store.getState().loadInfo();
    expect(store.getState().info.value).toMatchObject({ name: 'SkillDesk', mode: 'test' });
    expect(settingsReducer(store.getState(), { type: 'info/requested' }).info.status).toBe('loading');
  });
});
