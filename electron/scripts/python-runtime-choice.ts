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

/**
 * The hosts a chat's run_python code may reach (sorted; empty: no network). A value the column
 * cannot hold (it is checked to be a JSON array) reads as no network: a grant is never guessed.
 */
export function chatHosts(db: Db, sessionId: string): string[] {
  const v = db.prepare('SELECT python_hosts FROM chat_sessions WHERE id = ?').pluck().get(sessionId);
  if (typeof v !== 'string') return [];
  try {
    const list = JSON.parse(v) as unknown;
    return Array.isArray(list) ? list.filter((h): h is string => typeof h === 'string') : [];
  } catch {
    return [];
  }
}

/** Replace a chat's granted hosts (already validated); false when there is no such chat. */
export function setChatHosts(db: Db, sessionId: string, hosts: readonly string[]): boolean {
  const list = [...new Set(hosts)].sort();
  return (
    db.prepare('UPDATE chat_sessions SET python_hosts = ? WHERE id = ?').run(JSON.stringify(list), sessionId)
      .changes > 0
  );
}
