import type { HandlersFor } from '../contract/channels.js';
import { AppError } from '../contract/errors.js';
import type { FullPythonView } from '../contract/python.js';
import type { FullPython } from '../scripts/index.js';
import {
  chatHosts,
  chatRuntime,
  effectiveRuntime,
  runtimePreference,
  setChatHosts,
  setChatRuntime,
  setRuntimePreference,
} from '../scripts/index.js';
import type { ChatWorkspace } from './handlers.js';

/** What the `python/*` slice needs. */
export interface PythonHandlerDeps {
  session: ChatWorkspace;
  fullPython: FullPython;
  /** Null when Full Python can run here, else why not (the OS sandbox's answer). */
  fullUnavailable: () => string | null;
}

/** The `python/*` handlers: the runtime per Settings, workspace and chat; Full Python's packages. */
export function createPythonHandlers(deps: PythonHandlerDeps): HandlersFor<'python'> {
  const ws = deps.session;
  const view = (): FullPythonView => {
    const sel = deps.fullPython.selection();
    const extras = deps.fullPython.extras();
    let installed = false;
    try {
      installed = deps.fullPython.current() !== null;
    } catch {
      installed = false;
    }
    return {
      unavailable: deps.fullUnavailable(),
      installed,
      packages: sel.packages,
      wheels: sel.wheels.map((w) => `${w.name}==${w.version}`),
      added: extras.requirements,
      missing_bytes: deps.fullPython.missingBytes(),
    };
  };
  const levels = (sessionId?: string) => {
    const cat = ws.catalog.get();
    const chats = ws.chats.read();
    if (sessionId && !chats?.getSession(sessionId))
      throw new AppError('NOT_FOUND', `no chat "${sessionId}"`, { session_id: sessionId });
    return {
      chat: sessionId && chats ? chatRuntime(chats.db, sessionId) : null,
      workspace: cat.workspace ? runtimePreference(cat.workspace.db) : null,
      settings: runtimePreference(cat.account.db),
    };
  };
  const get = (sessionId?: string) => {
    const l = levels(sessionId);
    return { ...effectiveRuntime(l), ...l, full: view() };
  };
  return {
    'python/get-runtime': (req) => get(req.session_id),
    'python/set-runtime': (req) => {
      const cat = ws.catalog.get();
      if (req.level === 'settings') setRuntimePreference(cat.account.db, req.runtime);
      else if (req.level === 'workspace') {
        if (!ws.workspace)
          throw new AppError(
            'INVALID_INPUT',
            'no workspace is open: choose the runtime in Settings or for the chat',
          );
        setRuntimePreference(ws.writeStore().db, req.runtime);
      } else {
        const chats = ws.chats.read();
        if (!chats || !setChatRuntime(chats.db, req.session_id!, req.runtime))
          throw new AppError('NOT_FOUND', `no chat "${req.session_id}"`, { session_id: req.session_id });
      }
      return get(req.level === 'chat' ? req.session_id : undefined);
    },
    'python/get-network': (req) => {
      const chats = ws.chats.read();
      if (!chats?.getSession(req.session_id))
        throw new AppError('NOT_FOUND', `no chat "${req.session_id}"`, { session_id: req.session_id });
      return { session_id: req.session_id, hosts: chatHosts(chats.db, req.session_id) };
    },
    'python/set-network': (req) => {
      const chats = ws.chats.read();
      if (!chats || !setChatHosts(chats.db, req.session_id, req.hosts))
        throw new AppError('NOT_FOUND', `no chat "${req.session_id}"`, { session_id: req.session_id });
      return { session_id: req.session_id, hosts: chatHosts(chats.db, req.session_id) };
    },
    'python/install': async (_req, ctx) => {
      const why = deps.fullUnavailable();
      if (why) throw new AppError('HANDLER_NOT_AVAILABLE', why);
      await deps.fullPython.ensure({ signal: ctx?.signal });
      return view();
    },
    'python/add-packages': async (req, ctx) => {
      await deps.fullPython.add(req.requirements, { signal: ctx?.signal });
      return view();
    },
    'python/remove-packages': (req) => {
      deps.fullPython.remove(req.names);
      return view();
    },
  };
}
