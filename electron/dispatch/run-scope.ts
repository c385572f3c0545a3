import type { GrantedFolder, PythonRuntimeName } from '../contract/chat-files.js';
import type { Llm } from '../llm/index.js';
import type { ChatFolder } from '../scripts/index.js';
import type { DispatchResult } from './types.js';

/**
 * Everything one call runs with: built once where the call enters the core (a chat turn,
 * `skills/run` — which evals, MCP calls and Composer test runs go through) and passed down
 * unchanged to every handler and executor. Nothing below an entry point looks the model up or
 * swaps anything on a shared runtime: two chats on two models running at once each see only
 * their own scope, down to the DSPy sidecar's model calls.
 */
export interface RunScope {
  /** The chat (or one-off run) this call belongs to: traces and sandbox queues are keyed by it. */
  readonly session_id: string;
  /** The open workspace folder, if any. */
  readonly workspace: string | undefined;
  /** The model of this call, fixed when it began (a chat's own choice, else Settings'); null: none. */
  readonly llm: Llm | null;
  /** Harness-owned variables every skill of this call receives; they win over the model's `ctx`. */
  readonly harness: Readonly<Record<string, unknown>>;
  /** Aborted when the call is cancelled or its caller goes away. */
  readonly signal: AbortSignal | undefined;
  /** Told of each artifact execution as its trace row is written (progress events, activity). */
  readonly trace: (result: DispatchResult) => void;
  /**
   * Told, in words, what a running skill is doing inside (an LLM skill's model and tool calls),
   * for the chat's activity; set on the scope of one tool call by the chat, absent elsewhere.
   */
  readonly progress?: (message: string) => void;
  /** The chat's folder (`run_python`'s working folder); absent where the call has none. */
  readonly files?: ChatFolder;
  /** The runtime `run_python` uses in this call (default Pyodide). */
  readonly python?: PythonRuntimeName;
  /** Hosts the chat granted its run_python code (https, through the app's gate); absent: none. */
  readonly python_hosts?: readonly string[];
  /**
   * Folders of this machine the user granted (a chat's grants, `mcp serve --folder`): runs see each
   * read-only at `inputs/<name>/`, and only files inside them may be named by path; absent: none.
   */
  readonly folders?: readonly GrantedFolder[];
}

/** What an entry point knows when it builds a {@link RunScope}. */
export interface RunScopeInit {
  session_id: string;
  workspace?: string;
  llm: Llm | null;
  /** Harness keys besides `session_id` and `workspace`, which are always set from the scope. */
  harness?: Record<string, unknown>;
  signal?: AbortSignal;
  trace?: (result: DispatchResult) => void;
  files?: ChatFolder;
  python?: PythonRuntimeName;
  python_hosts?: readonly string[];
  folders?: readonly GrantedFolder[];
}

/** Build the scope of one call; the harness always carries its session and workspace. */
export function createRunScope(init: RunScopeInit): RunScope {
  return Object.freeze({
    session_id: init.session_id,
    workspace: init.workspace,
    llm: init.llm,
    harness: Object.freeze({
      ...init.harness,
      session_id: init.session_id,
      ...(init.workspace ? { workspace: init.workspace } : {}),
    }),
    signal: init.signal,
    trace: init.trace ?? (() => {}),
    ...(init.files ? { files: init.files } : {}),
    ...(init.python ? { python: init.python } : {}),
    ...(init.python_hosts?.length ? { python_hosts: Object.freeze([...init.python_hosts]) } : {}),
    ...(init.folders?.length
      ? { folders: Object.freeze(init.folders.map((f) => Object.freeze({ name: f.name, path: f.path }))) }
      : {}),
  });
}
