// The tools store's pure transitions: approvals arrive by event and by list (once each), settle
// (answered here, elsewhere, or timed out), progress by call, and live server status.
import { describe, expect, it } from 'vitest';
import type { ApprovalRequestedEvent, ListServersRes } from '../../../electron/contract/tools.js';
import type { Client } from '../../bridge/client.js';
import { createToolsStore, initialToolsState, toolsReducer } from './tools-store.js';

const ask = (id: string, session = 's1'): ApprovalRequestedEvent => ({
  approval_id: id,
  session_id: session,
  call_id: `c-${id}`,
  tool: 'files__write_file',
  server: 'files',
  server_tool: 'write_file',
  title: null,
  description: 'Write a file',
  args: { path: '/tmp/x' },
  annotations: { destructiveHint: true },
  expires_at: '2026-01-01T00:05:00.000Z',
});

describe('tools store transitions', () => {
  it('keeps each waiting approval once, whether it came by event or by list, and drops it when settled', () => {
    let s = toolsReducer(initialToolsState(), { type: 'approval/requested', e: ask('a') });
    s = toolsReducer(s, { type: 'approval/requested', e: ask('a') });
    s = toolsReducer(s, {
      type: 'approvals/loaded',
      value: { remembered: [], auto_read_only: false, pending: [ask('a'), ask('b', 's2')] },
    });
    expect(s.pending.map((p) => p.approval_id)).toEqual(['a', 'b']);
    s = toolsReducer(s, { type: 'approval/answering', approval_id: 'a' });
    expect(s.answering).toEqual({ a: true });
    s = toolsReducer(s, { type: 'approval/settled', approval_id: 'a' });
    expect(s.pending.map((p) => p.approval_id)).toEqual(['b']);
    expect(s.answering).toEqual({});
  });

  it('tracks progress per call and a server status change in the list', () => {
    const list: ListServersRes = {
      servers: [
        { name: 'files', scope: 'account', config: { command: 'x' }, overridden: false, status: null },
      ],
      files: { account: '/h/mcp.json', workspace: null },
      error: null,
    };
    let s = toolsReducer(initialToolsState(), { type: 'servers/loaded', value: list });
    s = toolsReducer(s, {
      type: 'status',
      s: {
        name: 'files',
        scope: 'account',
        transport: 'stdio',
        state: 'failed',
        error: 'the server closed the connection',
        retry_at: null,
        restarts: 0,
        tools: 0,
        pid: null,
      },
    });
    expect(s.servers?.servers[0]?.status?.state).toBe('failed');
    s = toolsReducer(s, {
      type: 'progress',
      e: { session_id: 's1', call_id: 'c1', progress: 2, total: 5, message: null },
    });
    expect(s.progress.c1?.progress).toBe(2);
  });
});

describe('enabling and disabling a server', () => {
  const list = (disabled: boolean): ListServersRes => ({
    servers: [
      {
        name: 'files',
        scope: 'account',
        config: disabled ? { command: 'x', disabled: true } : { command: 'x' },
        overridden: false,
        status: null,
      },
    ],
    files: { account: '/h/mcp.json', workspace: null },
    error: null,
  });
  /** A client whose save answers when `release` is called, with success or a refusal. */
  function slowClient(ok: boolean) {
    let release: () => void = () => {};
    const client = {
      subscribe: () => () => {},
      call: (channel: string) => {
        if (channel === 'tools/list-servers') return Promise.resolve({ ok: true, value: list(false) });
        if (channel === 'tools/list-approvals')
          return Promise.resolve({ ok: true, value: { remembered: [], auto_read_only: false, pending: [] } });
        return new Promise((resolve) => {
          release = () =>
            resolve(
              ok
                ? { ok: true, value: list(true) }
                : { ok: false, error: { code: 'INVALID_INPUT', message: 'mcp.json is not a JSON object' } },
            );
        });
      },
    } as unknown as Client;
    return { client, release: () => release() };
  }

  /**
   * Disable the server through a save that answers `ok` (or refuses); the switch must have moved
   * before the answer. Returns the store once the save has settled.
   */
  async function disableWith(ok: boolean) {
    const c = slowClient(ok);
    const store = createToolsStore(c.client);
    await store.getState().load();
    const done = store.getState().setEnabled('account', 'files', false);
    expect(store.getState().servers?.servers[0]?.config.disabled).toBe(true);
    c.release();
    await done;
    return store.getState();
  }

  it('moves the switch at once and keeps it when the save succeeds', async () => {
    const s = await disableWith(true);
    expect(s.servers?.servers[0]?.config.disabled).toBe(true);
    expect(s.saveError).toBeNull();
  });

  it('puts the switch back and says why when the save fails', async () => {
    const s = await disableWith(false);
    expect(s.servers?.servers[0]?.config.disabled).toBeUndefined();
    expect(s.saveError?.message).toMatch(/not a JSON object/);
  });
});
