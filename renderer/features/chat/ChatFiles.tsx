import { useCallback, useEffect, useId, useRef, useState } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import type { ChatFileView, GrantedFolder } from '../../../electron/contract/chat-files.js';
import { MAX_CHAT_FILE_BYTES } from '../../../electron/contract/chat-files.js';
import type { GetPythonRuntimeRes } from '../../../electron/contract/python.js';
import type { Client } from '../../bridge/client.js';
import { useChatStore, useStores } from '../../stores.js';
import { downloadBlob, saveBlobTo } from '../../ui/download.js';
import { Icon } from '../../ui/Icon.js';
import { docFromFile } from '../canvas/canvas-docs.js';
import type { CanvasStore } from '../canvas/canvas-store.js';
import './chat-files.css';
import { usePythonNetwork } from './python-network-store.js';

function sizeText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * Show a file of a chat's folder in the canvas: its bytes are read from the main process only now,
 * and shown by what they are (an image — PNG or SVG —, a CSV as a table, a Vega-Lite chart, text).
 */
export function openChatFile(
  client: Client,
  canvas: StoreApi<CanvasStore>,
  sessionId: string,
  name: string,
): Promise<void> {
  const short = name.split('/').at(-1) || name;
  return canvas.getState().openLoaded(short, async () => {
    const r = await client.invoke('chat/read-file', { session_id: sessionId, name });
    return docFromFile(short, r.media_type, r.data_base64, `In this chat’s files · ${name}`);
  });
}

async function chatFileBlob(client: Client, sessionId: string, name: string): Promise<Blob> {
  const r = await client.invoke('chat/read-file', { session_id: sessionId, name });
  const bytes = Uint8Array.from(atob(r.data_base64), (c) => c.charCodeAt(0));
  return new Blob([bytes], { type: r.media_type });
}

/** Download a chat file under its own name and media type (a blob URL: nothing leaves the app). */
async function downloadChatFile(client: Client, sessionId: string, name: string): Promise<void> {
  downloadBlob(name.split('/').at(-1) || 'file', await chatFileBlob(client, sessionId, name));
}

/** Save a chat file where the user picks (see {@link saveBlobTo}). */
async function saveChatFileTo(client: Client, sessionId: string, name: string): Promise<void> {
  await saveBlobTo(name.split('/').at(-1) || 'file', () => chatFileBlob(client, sessionId, name));
}

function toBase64(buf: ArrayBuffer): string {
  const bytes = new Uint8Array(buf);
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/**
 * The chat's folder: the files its runs wrote, its attachments and the files dropped in, each to
 * open in the canvas, download or delete; files dropped on the panel (or chosen) are added. Every
 * control is a button or a file input, so the panel is reached and used with the keyboard.
 */
export function ChatFiles() {
  const { client, canvas } = useStores();
  const sessionId = useChatStore((s) => s.activeId);
  const [files, setFiles] = useState<ChatFileView[] | null>(null);
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  // What the chat's Python may use, in a few words for the closed bar: each control reports its own.
  const [python, setPython] = useState<string | null>(null);
  const [network, setNetwork] = useState<string | null>(null);
  const [folders, setFolders] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const listId = useId();

  const load = useCallback(async () => {
    if (!sessionId) return setFiles(null);
    try {
      const r = await client.invoke('chat/list-files', { session_id: sessionId });
      setFiles(r.files);
    } catch {
      // A chat not stored yet (or deleted) has no folder to show.
      setFiles([]);
    }
  }, [client, sessionId]);

  useEffect(() => {
    setError(null);
    void load();
    if (!sessionId) return;
    // A run writes files, a message brings attachments: the list follows both.
    const offs = [
      client.subscribe('chat/tool-call-finished', (e) => {
        if (e.session_id === sessionId) void load();
      }),
      client.subscribe('chat/turn-finished', (e) => {
        if (e.session_id === sessionId) void load();
      }),
    ];
    return () => {
      for (const off of offs) off();
    };
  }, [client, sessionId, load]);

  if (!sessionId || files === null) return null;

  const upload = async (list: FileList | File[]) => {
    setError(null);
    for (const f of Array.from(list)) {
      if (f.size > MAX_CHAT_FILE_BYTES) {
        setError(
          `${f.name} is ${sizeText(f.size)}; a chat’s file may be at most ${sizeText(MAX_CHAT_FILE_BYTES)}.`,
        );
        continue;
      }
      try {
        const data_base64 = toBase64(await f.arrayBuffer());
        await client.invoke('chat/upload-file', { session_id: sessionId, name: f.name, data_base64 });
      } catch (e) {
        setError(`Couldn’t add ${f.name}: ${(e as Error).message}`);
      }
    }
    setOpen(true);
    await load();
  };
  const remove = async (name: string) => {
    setError(null);
    try {
      await client.invoke('chat/delete-file', { session_id: sessionId, name });
    } catch (e) {
      setError(`Couldn’t delete ${name}: ${(e as Error).message}`);
    }
    await load();
  };
  const act = (what: string, p: Promise<void>) =>
    p.catch((e: unknown) => setError(`Couldn’t ${what}: ${(e as Error).message}`));

  const total = files.reduce((n, f) => n + f.size, 0);
  return (
    <section
      className={`chat-files${dragging ? ' is-dragging' : ''}`}
      aria-label="This chat’s files"
      onDragOver={(e) => {
        if (!e.dataTransfer.types.includes('Files')) return;
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        if (!e.dataTransfer.files.length) return;
        e.preventDefault();
        setDragging(false);
        void upload(e.dataTransfer.files);
      }}
    >
      <div className="chat-files__bar">
        <button
          type="button"
          className="chat-files__toggle"
          aria-expanded={open}
          aria-controls={listId}
          onClick={() => setOpen((v) => !v)}
        >
          <Icon name={open ? 'chevronDown' : 'chevronRight'} /> <Icon name="folder" /> Files
          <span className="muted">
            {' '}
            · {files.length === 0 ? 'none yet' : `${files.length} · ${sizeText(total)}`}
          </span>
          {!open && (
            <span className="chat-files__summary muted" data-testid="chat-files-summary">
              {[python, network, folders].filter(Boolean).join(' · ')}
            </span>
          )}
        </button>
        <button
          type="button"
          className="btn btn--small"
          title="Add files to this chat’s folder, where Python runs find them by name"
          onClick={() => inputRef.current?.click()}
        >
          <Icon name="upload" /> Add files
        </button>
        <input
          ref={inputRef}
          type="file"
          multiple
          hidden
          aria-label="Add files to this chat"
          onChange={(e) => {
            if (e.target.files) void upload(e.target.files);
            e.target.value = '';
          }}
        />
      </div>
      {/* Kept mounted while closed, so the closed bar can say what is in effect. */}
      <div id={listId} hidden={!open}>
        {files.length === 0 ? (
          <p className="chat-files__empty muted">
            Files attached to messages, written by Python runs or dropped here appear in this chat’s folder.
          </p>
        ) : (
          <ul className="chat-files__list">
            {files.map((f) => (
              <li key={f.name} className="chat-files__item">
                <button
                  type="button"
                  className="chat-files__name"
                  title={`Open ${f.name} in the canvas`}
                  onClick={() => void act(`open ${f.name}`, openChatFile(client, canvas, sessionId, f.name))}
                >
                  <Icon name="file" /> {f.name}
                </button>
                <span className="muted chat-files__size">{sizeText(f.size)}</span>
                <button
                  type="button"
                  className="btn btn--icon btn--small"
                  aria-label={`Download ${f.name}`}
                  title={`Download ${f.name}`}
                  onClick={() => void act(`download ${f.name}`, downloadChatFile(client, sessionId, f.name))}
                >
                  <Icon name="download" />
                </button>
                <button
                  type="button"
                  className="btn btn--small"
                  aria-label={`Save ${f.name} to…`}
                  title={`Choose where to save ${f.name}`}
                  onClick={() => void act(`save ${f.name}`, saveChatFileTo(client, sessionId, f.name))}
                >
                  Save to…
                </button>
                <button
                  type="button"
                  className="btn btn--icon btn--small"
                  aria-label={`Delete ${f.name}`}
                  title={`Delete ${f.name} from this chat`}
                  onClick={() => void remove(f.name)}
                >
                  <Icon name="trash" />
                </button>
              </li>
            ))}
          </ul>
        )}
        <div className="chat-files__access">
          <PythonRuntimePicker sessionId={sessionId} onSummary={setPython} />
          <PythonNetworkHosts sessionId={sessionId} onSummary={setNetwork} />
          <GrantedFolders sessionId={sessionId} onSummary={setFolders} />
        </div>
      </div>
      {error && (
        <p className="step__reason" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

/**
 * Where this chat's `run_python` runs: its own choice, or (Follow) the workspace's, else Settings'.
 * The label says what is in effect and where it comes from; Full Python's first run installs it.
 */
export function PythonRuntimePicker({
  sessionId,
  onSummary,
}: {
  sessionId: string;
  /** Told what is in effect, in a few words ("Python: Pyodide"), whenever it changes. */
  onSummary?: (s: string | null) => void;
}) {
  const { client } = useStores();
  const [state, setState] = useState<GetPythonRuntimeRes | null>(null);
  const [error, setError] = useState<string | null>(null);
  const effective = state ? (state.chat ?? state.workspace ?? state.settings ?? 'pyodide') : null;
  useEffect(() => {
    onSummary?.(effective ? `Python: ${effective === 'full' ? 'Full Python' : 'Pyodide'}` : null);
  }, [effective, onSummary]);
  useEffect(() => {
    let live = true;
    client
      .invoke('python/get-runtime', { session_id: sessionId })
      .then((r) => live && setState(r))
      .catch(() => live && setState(null));
    return () => {
      live = false;
    };
  }, [client, sessionId]);
  if (!state) return null;
  const choose = async (v: string) => {
    setError(null);
    try {
      setState(
        await client.invoke('python/set-runtime', {
          level: 'chat',
          session_id: sessionId,
          runtime: v === 'follow' ? null : (v as 'pyodide' | 'full'),
        }),
      );
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const name = (r: string) => (r === 'full' ? 'Full Python' : 'Pyodide');
  const full = state.full;
  return (
    <label
      className="chat-files__runtime muted"
      title={
        full.unavailable
          ? `Full Python is not available here: ${full.unavailable}`
          : `Full Python: CPython with ${full.packages.join(', ')}${full.installed ? '' : ' (installed on its first run)'}`
      }
    >
      Python{' '}
      <select
        aria-label="Python runtime for this chat"
        value={state.chat ?? 'follow'}
        onChange={(e) => void choose(e.target.value)}
      >
        <option value="follow">
          Follow {state.workspace ? 'workspace' : 'Settings'} (
          {name(state.workspace ?? state.settings ?? 'pyodide')})
        </option>
        <option value="pyodide">Pyodide (standard library)</option>
        <option value="full" disabled={full.unavailable !== null}>
          Full Python (numpy, pandas, matplotlib…)
        </option>
      </select>
      {error && <span role="alert"> {error}</span>}
    </label>
  );
}

/**
 * The hosts this chat's Python code may reach (Pyodide, https, through the app): none by default.
 * The user adds a host by name (`example.com`, `example.com:8443`) and takes it back with its ×;
 * the main process checks each name, so a URL or a typo is refused with the reason.
 */
export function PythonNetworkHosts({
  sessionId,
  onSummary,
}: {
  sessionId: string;
  /** Told the hosts in a few words ("Network: none", "Network: api.example.com"). */
  onSummary?: (s: string | null) => void;
}) {
  const { client } = useStores();
  const network = usePythonNetwork(client, sessionId);
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | null>(null);
  const hosts = network.hosts;
  const hostsText = hosts ? (hosts.length <= 2 ? hosts.join(', ') : `${hosts.length} hosts`) || 'none' : null;
  useEffect(() => {
    onSummary?.(hostsText === null ? null : `Network: ${hostsText}`);
  }, [hostsText, onSummary]);
  if (!hosts) return null;
  const save = async (next: string[]) => {
    setError(null);
    try {
      await network.save(next);
      return true;
    } catch (e) {
      setError((e as Error).message);
      return false;
    }
  };
  return (
    <form
      className="chat-files__network muted"
      aria-label="Python network for this chat"
      onSubmit={(e) => {
        e.preventDefault();
        const host = draft.trim();
        if (host) void save([...hosts, host]).then((ok) => ok && setDraft(''));
      }}
    >
      <span title="Hosts this chat's Python code (Pyodide) may reach over https, through the app; nothing else">
        Network: {hosts.length === 0 ? 'none' : ''}
      </span>
      {hosts.map((h) => (
        <span key={h} className="chat-files__host">
          {h}
          <button
            type="button"
            className="btn btn--small"
            aria-label={`Stop allowing ${h}`}
            onClick={() => void save(hosts.filter((x) => x !== h))}
          >
            ×
          </button>
        </span>
      ))}
      <input
        aria-label="Allow a host for this chat's Python"
        placeholder="allow host…"
        value={draft}
        size={14}
        onChange={(e) => setDraft(e.target.value)}
      />
      {error && <span role="alert"> {error}</span>}
    </form>
  );
}

/**
 * Folders of this computer the user grants the chat: its scripts and Python runs read each under
 * inputs/<name>/ and cannot write there. Shown with the chat's other grants (network), each with its
 * path and a way to take it back. The path is typed (with completion) or, in the desktop app,
 * chosen in the system's folder dialog; the main process refuses the root, the home folder, the
 * app's own data folder and the kernel's folders, with the reason.
 */
export function GrantedFolders({
  sessionId,
  onSummary,
}: {
  sessionId: string;
  /** Told the granted folders in a few words ("Folders: none", "Folders: reports"). */
  onSummary?: (s: string | null) => void;
}) {
  const { client } = useStores();
  const [folders, setFolders] = useState<GrantedFolder[] | null>(null);
  const names = folders
    ? (folders.length <= 2 ? folders.map((f) => f.name).join(', ') : `${folders.length} folders`) || 'none'
    : null;
  useEffect(() => {
    onSummary?.(names === null ? null : `Folders: ${names}`);
  }, [names, onSummary]);
  const [adding, setAdding] = useState(false);
  const [draft, setDraft] = useState('');
  const [suggestions, setSuggestions] = useState<string[]>([]);
  const [canPick, setCanPick] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const listId = useId();
  useEffect(() => {
    let live = true;
    setAdding(false);
    setError(null);
    client
      .invoke('chat/list-folders', { session_id: sessionId })
      .then((r) => live && setFolders(r.folders))
      .catch(() => live && setFolders(null));
    client
      .invoke('workspace/get', {})
      .then((w) => live && setCanPick(w.can_pick_folder))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [client, sessionId]);
  if (!folders) return null;
  const grant = async (path: string) => {
    setError(null);
    try {
      setFolders((await client.invoke('chat/grant-folder', { session_id: sessionId, path })).folders);
      setDraft('');
      setAdding(false);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const revoke = async (name: string) => {
    setError(null);
    try {
      setFolders((await client.invoke('chat/revoke-folder', { session_id: sessionId, name })).folders);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const type = async (path: string) => {
    setDraft(path);
    try {
      const r = await client.invoke('workspace/complete-path', { prefix: path });
      setSuggestions(r.items.map((i) => i.path).slice(0, 20));
    } catch {
      setSuggestions([]);
    }
  };
  const pick = async () => {
    try {
      const r = await client.invoke('workspace/pick-folder', {});
      if (r.path) await grant(r.path);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section className="chat-files__folders muted" aria-label="Folders granted to this chat">
      <span title="Folders of this computer this chat's scripts and Python runs may read (read-only, under inputs/NAME/)">
        Folders: {folders.length === 0 ? 'none' : ''}
      </span>
      {folders.map((f) => (
        <span key={f.name} className="chat-files__host" title={`${f.path} — read-only as inputs/${f.name}/`}>
          <Icon name="folder" /> {f.name} <span className="chat-files__path">{f.path}</span> · read-only
          <button
            type="button"
            className="btn btn--small"
            aria-label={`Revoke ${f.name}`}
            title={`Stop granting ${f.path} to this chat`}
            onClick={() => void revoke(f.name)}
          >
            ×
          </button>
        </span>
      ))}
      {adding ? (
        <form
          className="chat-files__grant"
          onSubmit={(e) => {
            e.preventDefault();
            if (draft.trim()) void grant(draft.trim());
          }}
        >
          <input
            aria-label="Folder to grant (full path)"
            placeholder="/home/you/reports"
            value={draft}
            size={28}
            list={listId}
            spellCheck={false}
            autoComplete="off"
            // biome-ignore lint/a11y/noAutofocus: the field was just asked for
            autoFocus
            onChange={(e) => void type(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') setAdding(false);
            }}
          />
          <datalist id={listId}>
            {suggestions.map((p) => (
              <option key={p} value={p} />
            ))}
          </datalist>
          <button type="submit" className="btn btn--small btn--primary" disabled={!draft.trim()}>
            Grant read-only
          </button>
          {canPick && (
            <button type="button" className="btn btn--small" onClick={() => void pick()}>
              Choose…
            </button>
          )}
          <button type="button" className="btn btn--small" onClick={() => setAdding(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <button
          type="button"
          className="btn btn--small"
          title="Let this chat's scripts and Python runs read a folder of this computer (read-only)"
          onClick={() => setAdding(true)}
        >
          <Icon name="folder" /> Grant a folder…
        </button>
      )}
      {error && <span role="alert"> {error}</span>}
    </section>
  );
}

/** The files a `run_python` result lists (untrusted: only well-formed entries), or none. */
export function pythonFilesOf(result: unknown): Array<{ name: string; size: number; mime: string }> {
  const r = result && typeof result === 'object' ? (result as Record<string, unknown>) : null;
  if (!r || !Array.isArray(r.files)) return [];
  return r.files.filter(
    (f): f is { name: string; size: number; mime: string } =>
      !!f &&
      typeof f === 'object' &&
      typeof (f as { name?: unknown }).name === 'string' &&
      typeof (f as { size?: unknown }).size === 'number' &&
      typeof (f as { mime?: unknown }).mime === 'string',
  );
}

/** The files a `run_python` run wrote, as chips under its step that open them in the canvas. */
export function PythonRunFiles({ result }: { result: unknown }) {
  const { client, canvas } = useStores();
  const sessionId = useChatStore((s) => s.activeId);
  const files = pythonFilesOf(result);
  if (!sessionId || files.length === 0) return null;
  return (
    <div className="script-files">
      <ul className="script-files__list" aria-label="Files the run wrote">
        {files.map((f) => (
          <li key={f.name}>
            <button
              type="button"
              className="script-file"
              title={`Open ${f.name} (${f.mime}) in the canvas`}
              onClick={() => void openChatFile(client, canvas, sessionId, f.name)}
            >
              <Icon name="panelRight" /> <span className="script-file__name">{f.name}</span>{' '}
              <span className="muted">{sizeText(f.size)}</span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * Hosts a Python run was refused because the chat does not allow them (untrusted result:
 * only well-formed entries count; each host once).
 */
export function refusedHostsOf(result: unknown): string[] {
  const r = result && typeof result === 'object' ? (result as Record<string, unknown>) : null;
  if (!r || !Array.isArray(r.requests)) return [];
  const out: string[] = [];
  for (const q of r.requests) {
    const h = q && typeof q === 'object' ? (q as { refused_host?: unknown }).refused_host : undefined;
    if (typeof h === 'string' && h.length <= 260 && !out.includes(h)) out.push(h);
  }
  return out.slice(0, 5);
}

/**
 * The network grant, asked apart from the run's approval: a run that tried to reach a host the
 * chat does not allow was refused (the model read why); here the user can allow that host for the
 * chat, and the next run reaches it. Nothing is allowed unasked, and "Keep blocked" only hides the
 * question.
 */
export function PythonNetworkAsk({ result }: { result: unknown }) {
  const { client } = useStores();
  const sessionId = useChatStore((s) => s.activeId);
  const refused = refusedHostsOf(result);
  if (!sessionId || refused.length === 0) return null;
  return <NetworkAsk client={client} sessionId={sessionId} refused={refused} />;
}

function NetworkAsk({
  client,
  sessionId,
  refused,
}: {
  client: Client;
  sessionId: string;
  refused: string[];
}) {
  const network = usePythonNetwork(client, sessionId);
  const [dismissed, setDismissed] = useState<string[]>([]);
  const [allowedHere, setAllowedHere] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  if (!network.hosts) return null;
  const granted = network.hosts;
  const open = refused.filter(
    (h) => !dismissed.includes(h) && (!granted.includes(h) || allowedHere.includes(h)),
  );
  if (open.length === 0) return null;
  const allow = async (h: string) => {
    setError(null);
    try {
      await network.save([...granted.filter((x) => x !== h), h]);
      setAllowedHere((a) => [...a, h]);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section className="net-ask" aria-label="Network for this chat's Python">
      {open.map((h) =>
        granted.includes(h) ? (
          <p key={h} className="net-ask__row" role="status">
            <Icon name="check" /> <strong>{h}</strong> is allowed for this chat: ask the model to run it
            again.
          </p>
        ) : (
          <div key={h} className="net-ask__row">
            <Icon name="alert" />
            <span>
              The run tried to reach <strong>{h}</strong>; this chat&apos;s Python may not.
            </span>
            <button type="button" className="btn btn--small btn--primary" onClick={() => void allow(h)}>
              Allow {h} for this chat
            </button>
            <button type="button" className="btn btn--small" onClick={() => setDismissed((d) => [...d, h])}>
              Keep blocked
            </button>
          </div>
        ),
      )}
      {error && (
        <p className="net-ask__error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
