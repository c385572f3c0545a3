import { PYTHON_RUNTIMES, type PythonRuntimeName } from '../contract/chat-files.js';
import type { GetPythonRuntimeRes } from '../contract/python.js';
import type { Db } from '../store/index.js';

const KEY = 'python_runtime';
const isRuntime = (v: unknown): v is PythonRuntimeName =>
  typeof v === 'string' && (PYTHON_RUNTIMES as readonly string[]).includes(v);

/** The runtime a store (the account's: Settings; a workspace's) chose, or null. */
export function runtimePreference(db: Db): PythonRuntimeName | null {
  const row = db.prepare('SELECT value FROM tool_preferences WHERE key = ?').get(KEY) as
    | { value: string }
    | undefined;
  return isRuntime(row?.value) ? row.value : null;
}

/** Choose (or, with null, forget) a store's runtime. */
export function setRuntimePreference(db: Db, runtime: PythonRuntimeName | null): void {
  if (runtime === null) db.prepare('DELETE FROM tool_preferences WHERE key = ?').run(KEY);
  else
    db.prepare(
      'INSERT INTO tool_preferences (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ).run(KEY, runtime);
}

/** A chat's own runtime (null: it follows the workspace, then Settings). */
export function chatRuntime(db: Db, sessionId: string): PythonRuntimeName | null {
  const v = db.prepare('SELECT python_runtime FROM chat_sessions WHERE id = ?').pluck().get(sessionId);
  return isRuntime(v) ? v : null;
}

/** Set a chat's runtime; false when there is no such chat. */
export function setChatRuntime(db: Db, sessionId: string, runtime: PythonRuntimeName | null): boolean {
  return (
    db.prepare('UPDATE chat_sessions SET python_runtime = ? WHERE id = ?').run(runtime, sessionId).changes > 0
  );
}

/** The runtime in effect: the chat's, else the workspace's, else Settings', else Pyodide. */
export function effectiveRuntime(levels: {
  chat: PythonRuntimeName | null;
  workspace: PythonRuntimeName | null;
  settings: PythonRuntimeName | null;
}): Pick<GetPythonRuntimeRes, 'runtime' | 'from'> {
  if (levels.chat) return { runtime: levels.chat, from: 'chat' };
  if (levels.workspace) return { runtime: levels.workspace, from: 'workspace' };
  if (levels.settings) return { runtime: levels.settings, from: 'settings' };
  return { runtime: 'pyodide', from: 'default' };
}
