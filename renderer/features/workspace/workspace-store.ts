import { createStore, type StoreApi } from 'zustand/vanilla';
import { AppError, type AppErrorData } from '../../../electron/contract/errors.js';
import type { ProgressTask } from '../../../electron/contract/progress.js';
import type { RecentWorkspace, WorkspaceState } from '../../../electron/contract/workspace.js';
import type { Client } from '../../bridge/client.js';

/** The open workspace, the switcher dialog and the app-wide progress area. */
export interface WorkspaceStoreState {
  current: WorkspaceState | null;
  recent: RecentWorkspace[];
  /** The switcher dialog. */
  picker: {
    open: boolean;
    path: string;
    completions: Array<{ path: string; name: string }>;
    /** Set while a switch is under way: the path being opened ('' for account-only). */
    opening: string | null;
    error: AppErrorData | null;
  };
  /** Long work in the main process, newest last. */
  tasks: ProgressTask[];
}

/** Workspace and progress events. */
export type WorkspaceEvent =
  | { type: 'current/loaded'; state: WorkspaceState }
  | { type: 'recent/loaded'; items: RecentWorkspace[] }
  | { type: 'picker/opened' }
  | { type: 'picker/closed' }
  | { type: 'picker/typed'; path: string }
  | { type: 'picker/completed'; path: string; items: Array<{ path: string; name: string }> }
  | { type: 'open/started'; path: string | null }
  | { type: 'open/failed'; error: AppErrorData }
  | { type: 'task/updated'; task: ProgressTask }
  | { type: 'tasks/loaded'; tasks: ProgressTask[] }
  | { type: 'task/dismissed'; id: string };

/** The state before anything loads. */
export const initialWorkspace: WorkspaceStoreState = {
  current: null,
  recent: [],
  picker: { open: false, path: '', completions: [], opening: null, error: null },
  tasks: [],
};

/** Pure transitions. A completion for an older text than the field holds is dropped. */
export function workspaceReducer(s: WorkspaceStoreState, e: WorkspaceEvent): WorkspaceStoreState {
  switch (e.type) {
    case 'current/loaded':
      return { ...s, current: e.state };
    case 'recent/loaded':
      return { ...s, recent: e.items };
    case 'picker/opened':
      return {
        ...s,
        picker: { ...initialWorkspace.picker, open: true, path: s.current?.path ? `${s.current.path}/` : '' },
      };
    case 'picker/closed':
      return s.picker.opening !== null ? s : { ...s, picker: { ...s.picker, open: false, error: null } };
    case 'picker/typed':
      return { ...s, picker: { ...s.picker, path: e.path, error: null } };
    case 'picker/completed':
      return e.path === s.picker.path ? { ...s, picker: { ...s.picker, completions: e.items } } : s;
    case 'open/started':
      return { ...s, picker: { ...s.picker, opening: e.path ?? '', error: null } };
    case 'open/failed':
      return { ...s, picker: { ...s.picker, open: true, opening: null, error: e.error } };
    case 'task/updated': {
      const others = s.tasks.filter((t) => t.id !== e.task.id);
      return { ...s, tasks: [...others, e.task].slice(-20) };
    }
    case 'tasks/loaded':
      return { ...s, tasks: e.tasks };
    case 'task/dismissed':
      return { ...s, tasks: s.tasks.filter((t) => t.id !== e.id) };
  }
}

/** The store with its actions. */
export interface WorkspaceStore extends WorkspaceStoreState {
  load(): Promise<void>;
  openPicker(): void;
  closePicker(): void;
  type(path: string): Promise<void>;
  /** Open a folder as the workspace, or account-only mode with null. */
  open(path: string | null): Promise<void>;
  /** The native folder dialog (desktop), then open what was picked. */
  browse(): Promise<void>;
  forget(path: string): Promise<void>;
  reindex(): Promise<void>;
  cancelTask(id: string): Promise<void>;
  dismissTask(id: string): void;
  /** Stop following main-process events. */
  dispose(): void;
}

const toError = (e: unknown): AppErrorData =>
  e instanceof AppError ? e.toData() : { code: 'INTERNAL', message: String(e) };

/**
 * Create the workspace store. `onSwitched` runs after another workspace opened (here or in
 * another window), so every view reloads from the new one.
 */
export function createWorkspaceStore(
  client: Client,
  onSwitched: () => void = () => {},
): StoreApi<WorkspaceStore> {
  return createStore<WorkspaceStore>()((set, get) => {
    const dispatch = (e: WorkspaceEvent) => set((s) => workspaceReducer(s, e));
    const offs = [
      client.subscribe('workspace/changed', (e) => {
        const { reason, ...state } = e;
        dispatch({ type: 'current/loaded', state });
        // Every window hears this, the one that switched included (its own reply may come later, and
        // the new folder's first pages event may come sooner): reload here, once per switch.
        if (reason === 'opened') {
          void client.invoke('workspace/recent', {}).then(
            (r) => dispatch({ type: 'recent/loaded', items: r.items }),
            () => {},
          );
          onSwitched();
        }
      }),
      client.subscribe('progress/task-updated', (task) => dispatch({ type: 'task/updated', task })),
    ];
    return {
      ...initialWorkspace,
      async load() {
        try {
          const [current, recent, progress] = await Promise.all([
            client.invoke('workspace/get', {}),
            client.invoke('workspace/recent', {}),
            client.invoke('progress/list', {}),
          ]);
          dispatch({ type: 'current/loaded', state: current });
          dispatch({ type: 'recent/loaded', items: recent.items });
          dispatch({ type: 'tasks/loaded', tasks: progress.tasks });
        } catch {
          // Disconnected: the banner says so; the next load after reconnecting fills this in.
        }
      },
      openPicker() {
        dispatch({ type: 'picker/opened' });
        void get().type(get().picker.path);
        void client.invoke('workspace/recent', {}).then(
          (r) => dispatch({ type: 'recent/loaded', items: r.items }),
          () => {},
        );
      },
      closePicker: () => dispatch({ type: 'picker/closed' }),
      async type(path) {
        dispatch({ type: 'picker/typed', path });
        try {
          const r = await client.invoke('workspace/complete-path', { prefix: path });
          dispatch({ type: 'picker/completed', path, items: r.items });
        } catch {
          dispatch({ type: 'picker/completed', path, items: [] });
        }
      },
      async open(path) {
        if (get().picker.opening !== null) return;
        dispatch({ type: 'open/started', path });
        try {
          const state = await client.invoke('workspace/open', { path });
          dispatch({ type: 'current/loaded', state });
          set((s) => ({ picker: { ...s.picker, opening: null, open: false } }));
          const r = await client.invoke('workspace/recent', {});
          dispatch({ type: 'recent/loaded', items: r.items });
        } catch (e) {
          dispatch({ type: 'open/failed', error: toError(e) });
        }
      },
      async browse() {
        try {
          const r = await client.invoke('workspace/pick-folder', {});
          if (r.path) await get().open(r.path);
        } catch (e) {
          dispatch({ type: 'open/failed', error: toError(e) });
        }
      },
      async forget(path) {
        try {
          const r = await client.invoke('workspace/forget', { path });
          dispatch({ type: 'recent/loaded', items: r.items });
        } catch {
          // Nothing lost: the entry stays and can be forgotten again.
        }
      },
      async reindex() {
        try {
          dispatch({ type: 'current/loaded', state: await client.invoke('workspace/reindex', {}) });
        } catch {
          // The pages line shows the last error the main process reported.
        }
      },
      async cancelTask(id) {
        try {
          await client.invoke('progress/cancel', { id });
        } catch {
          // Already ended: its final state arrives as an event.
        }
      },
      dismissTask: (id) => dispatch({ type: 'task/dismissed', id }),
      dispose() {
        for (const off of offs) off();
      },
    };
  });
}
