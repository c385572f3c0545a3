import { useCallback, useEffect, useId, useState } from 'react';
import type { GetPythonRuntimeRes } from '../../../electron/contract/python.js';
import { useStores } from '../../stores.js';

type Choice = 'pyodide' | 'full';

/**
 * Where `run_python` runs by default (Settings), in the open workspace (over Settings), and Full
 * Python's packages: the lock's, and those the user adds (wheels only, fitting the pinned ones).
 * A chat's own choice is made in the chat, beside its Files.
 */
export function PythonCard() {
  const { client } = useStores();
  const id = useId();
  const [state, setState] = useState<GetPythonRuntimeRes | null>(null);
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<{ error: boolean; text: string } | null>(null);
  const load = useCallback(() => {
    client
      .invoke('python/get-runtime', {})
      .then(setState)
      .catch(() => setState(null));
  }, [client]);
  useEffect(load, [load]);
  if (!state) return null;
  const run = async (what: string, p: () => Promise<unknown>) => {
    setBusy(true);
    setNotice(null);
    try {
      await p();
      setNotice({ error: false, text: what });
    } catch (e) {
      setNotice({ error: true, text: (e as Error).message });
    } finally {
      setBusy(false);
      load();
    }
  };
  const set = (level: 'settings' | 'workspace', v: string) =>
    run('Saved.', () =>
      client.invoke('python/set-runtime', { level, runtime: v === 'follow' ? null : (v as Choice) }),
    );
  const full = state.full;
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="card__title">
        Python for the model (run_python)
      </h2>
      <p className="card__text">
        Pyodide runs the standard library in WebAssembly. Full Python runs CPython with{' '}
        {full.packages.join(', ')} in the OS sandbox (no network, only the chat’s files), installed from
        pinned, hash-checked wheels on first use.{' '}
        {full.unavailable
          ? `Not available here: ${full.unavailable}`
          : full.installed
            ? 'Installed.'
            : `${(full.missing_bytes / 1e6).toFixed(0)} MB to download on first use.`}
      </p>
      <div className="field">
        <label htmlFor={`${id}-default`}>Default runtime</label>
        <select
          id={`${id}-default`}
          className="input"
          value={state.settings ?? 'pyodide'}
          disabled={busy}
          onChange={(e) => void set('settings', e.target.value)}
        >
          <option value="pyodide">Pyodide (standard library)</option>
          <option value="full" disabled={full.unavailable !== null}>
            Full Python
          </option>
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-ws`}>In this workspace</label>
        <select
          id={`${id}-ws`}
          className="input"
          value={state.workspace ?? 'follow'}
          disabled={busy}
          onChange={(e) => void set('workspace', e.target.value)}
        >
          <option value="follow">Follow the default</option>
          <option value="pyodide">Pyodide</option>
          <option value="full" disabled={full.unavailable !== null}>
            Full Python
          </option>
        </select>
      </div>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const reqs = draft.split(/[\s,]+/).filter(Boolean);
          if (reqs.length)
            void run('Added: the next Full Python run installs them.', async () => {
              await client.invoke('python/add-packages', { requirements: reqs });
              setDraft('');
            });
        }}
      >
        <div className="field">
          <label htmlFor={`${id}-add`}>Add packages to Full Python</label>
          <input
            id={`${id}-add`}
            className="input"
            value={draft}
            placeholder="seaborn statsmodels"
            onChange={(e) => setDraft(e.target.value)}
            spellCheck={false}
          />
          <span className="field__help">
            Added: {full.added.length ? full.added.join(', ') : 'none'}. Wheels only, never built from source.
          </span>
        </div>
        <button type="submit" className="btn" disabled={busy || !draft.trim()}>
          Add
        </button>
        {full.added.length > 0 && (
          <button
            type="button"
            className="btn"
            disabled={busy}
            onClick={() =>
              void run('Removed.', () =>
                client.invoke('python/remove-packages', {
                  names: full.added.map((r) => r.split(/[<>=!~;[ ]/)[0]!),
                }),
              )
            }
          >
            Remove added packages
          </button>
        )}
        {!full.installed && !full.unavailable && (
          <button
            type="button"
            className="btn"
            disabled={busy}
            onClick={() => void run('Full Python is installed.', () => client.invoke('python/install', {}))}
          >
            Install now
          </button>
        )}
      </form>
      {notice && (
        <p className={`form__notice${notice.error ? ' is-error' : ''}`} role="status">
          {notice.text}
        </p>
      )}
    </section>
  );
}
