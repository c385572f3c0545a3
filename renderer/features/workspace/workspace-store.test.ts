// @vitest-environment jsdom
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../electron/test-support/index.js';
import { createStores } from '../../stores.js';
import { inProcessClient } from '../../test-support.js';
import { initialWorkspace, workspaceReducer } from './workspace-store.js';

describe('the workspace store', () => {
  it('drops completions for text the field no longer holds, and keeps the dialog open while switching', () => {
    let s = workspaceReducer(initialWorkspace, { type: 'picker/opened' });
    s = workspaceReducer(s, { type: 'picker/typed', path: '/a' });
    s = workspaceReducer(s, { type: 'picker/typed', path: '/ab' });
    expect(
      workspaceReducer(s, { type: 'picker/completed', path: '/a', items: [{ path: '/a/x', name: 'x' }] }),
    ).toBe(s);
    s = workspaceReducer(s, { type: 'open/started', path: '/ab' });
    expect(workspaceReducer(s, { type: 'picker/closed' }).picker.open).toBe(true);
    s = workspaceReducer(s, {
      type: 'open/failed',
      error: { code: 'NOT_FOUND', message: 'There is no folder at /ab.' },
    });
    expect(s.picker).toMatchObject({ open: true, opening: null, error: { code: 'NOT_FOUND' } });
    expect(workspaceReducer(s, { type: 'picker/closed' }).picker.open).toBe(false);
  });

  it('switches the real host between folders and back to account-only; sessions and skills follow', async () => {
    const { client, host } = inProcessClient();
    const stores = createStores(client);
    const ws = stores.workspace;
    try {
      await ws.getState().load();
      expect(ws.getState().current).toMatchObject({ path: null, name: null, pages: null });

      const parent = tempDir();
      const a = join(parent, 'alpha');
      mkdirSync(a);
      writeFileSync(join(a, 'page.md'), '# Page');
      await ws.getState().type(`${parent}/al`);
      expect(ws.getState().picker.completions.map((c) => c.name)).toEqual(['alpha']);

      await ws.getState().open(join(parent, 'missing'));
      expect(ws.getState().picker.error?.code).toBe('NOT_FOUND');
      expect(ws.getState().current?.path).toBeNull();

      await ws.getState().open(a);
      expect(ws.getState().current).toMatchObject({ path: a, name: 'alpha' });
      expect((await client.invoke('app/info', {})).workspace).toBe(a);
      expect(ws.getState().recent.map((r) => r.path)).toEqual([a]);

      await ws.getState().open(null);
      expect(ws.getState().current?.path).toBeNull();
      expect((await client.invoke('app/info', {})).workspace).toBeNull();
    } finally {
      ws.getState().dispose();
      await host.dispose();
    }
  });

  it("says where the account's chats are when an empty workspace is open", async () => {
    const { client, host } = inProcessClient();
    const stores = createStores(client);
    try {
      await stores.workspace.getState().load();
      // A chat in the account (no model set up: the turn still keeps the chat).
      const turn = (await client.invoke('chat/send-message', { message: 'hello there' })) as {
        session_id: string;
      };
      expect(turn.session_id).toBeTruthy();
      await expect.poll(async () => (await client.invoke('chat/list-sessions', {})).sessions.length).toBe(1);
      expect((await client.invoke('chat/list-sessions', {})).account_chats).toBeUndefined();

      const folder = join(tempDir(), 'beta');
      mkdirSync(folder);
      await stores.workspace.getState().open(folder);
      const inside = await client.invoke('chat/list-sessions', {});
      expect(inside.sessions).toEqual([]);
      expect(inside.account_chats).toBe(1);
      await stores.chat.getState().loadSessions();
      expect(stores.chat.getState().sessions).toMatchObject({ items: [], accountChats: 1 });

      await stores.workspace.getState().open(null);
      expect((await client.invoke('chat/list-sessions', {})).sessions).toHaveLength(1);
    } finally {
      stores.workspace.getState().dispose();
      await host.dispose();
    }
  });
});
