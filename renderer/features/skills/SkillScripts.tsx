import { useCallback, useEffect, useId, useRef, useState } from 'react';
import type { ScriptRuntimeStatus } from '../../../electron/contract/builtin-tools.js';
import { useStores } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';

/** The runtime sentence as a sentence: capitalised, ending in a full stop. */
export function runtimeSentence(reason: string): string {
  const s = reason.trim();
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}${/[.!?]$/.test(s) ? '' : '.'}`;
}

function acceptedOn(iso: string | null): string {
  const d = iso ? new Date(iso) : null;
  return d && !Number.isNaN(d.getTime())
    ? ` on ${d.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' })}`
    : '';
}

type Busy = null | 'status' | 'accept' | 'revoke' | 'install' | 'program';

/**
 * How a skill's scripts run, beside its other permissions: the runtime in words, the packages with
 * compiled code that need the OS sandbox, the user's once-per-skill acceptance of it (a deliberate
 * Accept, a one-click Revoke), what the scripts import when the skill declares no packages (shown,
 * then installed only on confirmation), and, where this machine has no OS sandbox, why such scripts
 * are refused. The main process decides everything; this view shows its answer and sends choices.
 */
export function SkillScripts({ name, reloadKey = 0 }: { name: string; reloadKey?: number }) {
  const { client } = useStores();
  const [status, setStatus] = useState<ScriptRuntimeStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<Busy>('status');
  const [confirming, setConfirming] = useState(false);
  const [installed, setInstalled] = useState<string | null>(null);
  const [pending, setPending] = useState<string | null>(null);
  const ids = useId();
  const installRef = useRef<HTMLButtonElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const wasConfirming = useRef(false);
  // Keyboard users land on the confirmation when it opens and back on Install… when it closes.
  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
    else if (wasConfirming.current) installRef.current?.focus();
    wasConfirming.current = confirming;
  }, [confirming]);

  const act = useCallback(async (what: Exclude<Busy, null>, p: () => Promise<ScriptRuntimeStatus>) => {
    setBusy(what);
    setError(null);
    try {
      setStatus(await p());
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(null);
    }
  }, []);
  const load = useCallback(
    () => act('status', () => client.invoke('scripts/runtime-status', { name })),
    [act, client, name],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: reloadKey asks again after a package install elsewhere on the page
  useEffect(() => {
    setStatus(null);
    setConfirming(false);
    setInstalled(null);
    void load();
  }, [load, reloadKey]);

  const setAccepted = (accepted: boolean) =>
    act(accepted ? 'accept' : 'revoke', () =>
      client.invoke('scripts/set-native-runtime', { name, accepted }),
    );
  // A program grant changes one flag: the page updates it in place instead of reading the
  // scripts again (which parses every one of them).
  const setProgram = (program: string, granted: boolean) => {
    setPending(program);
    return act('program', async () => {
      const r = await client.invoke('scripts/set-programs', { name, programs: [program], granted });
      const now = new Set(r.granted.map((g) => g.program));
      const base = status!;
      return { ...base, programs: base.programs.map((p) => ({ ...p, granted: now.has(p.program) })) };
    });
  };
  const install = (packages: string[]) =>
    act('install', async () => {
      const r = await client.invoke('scripts/install-packages', {
        name,
        from_imports: true,
        native: true,
        packages,
      });
      setInstalled(
        `${r.already_installed ? 'Already installed' : 'Installed'}: ${r.wheels.map((w) => `${w.name} ${w.version}`).join(', ')}`,
      );
      setConfirming(false);
      return client.invoke('scripts/runtime-status', { name });
    });

  if (!status) {
    if (!error) return null;
    return (
      <section className="scripts" aria-label="Scripts">
        <h3 className="section-title">Scripts</h3>
        <div className="callout callout--error" role="alert">
          <Icon name="alert" />
          <div>
            <p>Could not tell how its scripts run: {error}</p>
            <button type="button" className="btn btn--small" onClick={() => void load()}>
              Try again
            </button>
          </div>
        </div>
      </section>
    );
  }
  if (!status.has_scripts && !status.native_accepted) return null;
  const native = status.runtime === 'native';
  const proposed = status.installed === null ? status.proposed : null;
  const distributions = proposed?.map((p) => p.distribution) ?? [];
  const cli = `skilldesk skills native-runtime ${status.native_accepted ? 'revoke' : 'accept'} ${JSON.stringify(name)}`;
  return (
    <section className="scripts" aria-labelledby={`${ids}-title`} data-testid="skill-scripts">
      <h3 className="section-title" id={`${ids}-title`}>
        Scripts
      </h3>
      <p className="scripts__runtime" data-testid="script-runtime">
        {runtimeSentence(status.reason)}
      </p>
      {status.compiled.length > 0 && (
        <div className="scripts__compiled">
          <span className="scripts__label" id={`${ids}-compiled`}>
            Compiled code
          </span>
          <ul className="phrases" aria-labelledby={`${ids}-compiled`}>
            {status.compiled.map((c) => (
              <li key={c} className="phrase phrase--mono">
                {c}
              </li>
            ))}
          </ul>
        </div>
      )}
      {status.programs.length > 0 && (
        <div className="scripts__programs" data-testid="script-programs">
          <span className="scripts__label" id={`${ids}-programs`}>
            Programs it starts
          </span>
          <ul className="scripts__program-list" aria-labelledby={`${ids}-programs`}>
            {status.programs.map((p) => (
              <li key={p.program} className="scripts__program">
                <code
                  className={`phrase phrase--mono${p.path ? '' : ' phrase--missing'}`}
                  title={p.path ?? undefined}
                >
                  {p.program}
                </code>
                <span className="scripts__program-state muted">
                  {p.product ? `${p.product} · ` : ''}
                  {!p.path
                    ? 'not installed on this computer'
                    : p.granted
                      ? 'allowed, inside the sandbox'
                      : 'not allowed: the script gets an error naming it'}
                </span>
                {p.path && (
                  <button
                    type="button"
                    className={`btn btn--small${p.granted ? ' btn--ghost-danger' : ''}`}
                    disabled={busy !== null}
                    aria-label={`${p.granted ? 'Take back' : 'Allow'} ${p.program}`}
                    onClick={() => void setProgram(p.program, !p.granted)}
                  >
                    {busy === 'program' && pending === p.program ? '…' : p.granted ? 'Take back' : 'Allow'}
                  </button>
                )}
              </li>
            ))}
          </ul>
          <p className="packages__help">
            A program runs only once you allow it for this skill, and then inside the same sandbox as its
            scripts.
          </p>
        </div>
      )}
      {status.missing_programs && (
        <p className="scripts__installed muted" data-testid="script-programs-missing">
          {runtimeSentence(status.missing_programs)}
        </p>
      )}
      {(native || status.native_accepted) && (
        <fieldset
          className={`scripts__grant${status.native_accepted ? ' scripts__grant--on' : ''}`}
          aria-label="OS sandbox permission"
        >
          <Icon name={status.native_accepted ? 'check' : 'alert'} />
          <div className="scripts__grant-text">
            <strong>
              {status.native_accepted
                ? `OS sandbox accepted${acceptedOn(status.accepted_at)}`
                : 'OS sandbox not accepted'}
            </strong>
            <span className="muted" id={`${ids}-grant-help`}>
              {status.native_accepted
                ? native
                  ? 'Its scripts run with CPython in the OS sandbox: no network, its own files and your inputs read-only, out/ the only folder it may write.'
                  : 'Its scripts do not need it now; the acceptance stays until you revoke it.'
                : 'Its scripts are refused until you accept. They would run with CPython in the OS sandbox: no network, its own files and your inputs read-only, out/ the only folder it may write.'}
            </span>
          </div>
          {status.native_accepted ? (
            <button
              type="button"
              className="btn btn--small btn--ghost-danger"
              disabled={busy !== null}
              aria-describedby={`${ids}-revoke-help`}
              onClick={() => void setAccepted(false)}
            >
              {busy === 'revoke' ? 'Revoking…' : 'Revoke'}
            </button>
          ) : (
            <button
              type="button"
              className="btn btn--small btn--primary"
              disabled={busy !== null}
              aria-describedby={`${ids}-grant-help`}
              onClick={() => void setAccepted(true)}
            >
              {busy === 'accept' ? 'Accepting…' : 'Accept for this skill'}
            </button>
          )}
          {status.native_accepted && (
            <span className="scripts__revoke-help muted" id={`${ids}-revoke-help`}>
              Revoking refuses its scripts until you accept again.
            </span>
          )}
        </fieldset>
      )}
      {!status.os_sandbox_available && (
        <div className="callout callout--warn" role="note">
          <Icon name="alert" />
          <p>
            No OS sandbox on this machine: {status.os_sandbox_reason}. Scripts whose packages have compiled
            code are refused here, never run unconfined.
          </p>
        </div>
      )}
      {status.installed && (
        <p className="scripts__installed muted">
          Installed for its scripts{status.installed.from === 'imports' ? ' (from what they import)' : ''}:{' '}
          {status.installed.packages
            .map((p) => `${p.name} ${p.version}${p.compiled ? ' (compiled)' : ''}`)
            .join(', ')}
        </p>
      )}
      {proposed && proposed.length === 0 && (
        <p className="scripts__installed muted">Its scripts import only Python's standard library.</p>
      )}
      {proposed && proposed.length > 0 && (
        <div className="scripts__proposed">
          <span className="scripts__label" id={`${ids}-proposed`}>
            Its scripts import
          </span>
          <ul className="scripts__imports" aria-labelledby={`${ids}-proposed`}>
            {proposed.map((p) => (
              <li key={p.module}>
                <code>{p.distribution}</code>
                {p.module !== p.distribution && <span className="muted"> for import {p.module}</span>}
                <span className="muted"> · {p.files.join(', ')}</span>
              </li>
            ))}
          </ul>
          <p className="packages__help">
            It declares no requirements.txt, so these were read from its scripts. Nothing is installed until
            you confirm: wheels only, pinned by SHA-256, into this skill's own environment. Packages with
            compiled code make its scripts run in the OS sandbox.
          </p>
          {!confirming ? (
            <div className="packages__actions">
              <button
                ref={installRef}
                type="button"
                className="btn btn--small"
                disabled={busy !== null}
                onClick={() => setConfirming(true)}
              >
                <Icon name="download" /> Install…
              </button>
            </div>
          ) : (
            <fieldset className="scripts__confirm" aria-label="Confirm the install">
              <p>
                Install{' '}
                {distributions.length === 1 ? 'this package' : `these ${distributions.length} packages`}:{' '}
                <strong>{distributions.join(', ')}</strong>?
              </p>
              <div className="packages__actions">
                <button
                  ref={confirmRef}
                  type="button"
                  className="btn btn--small btn--primary"
                  disabled={busy !== null}
                  onClick={() => void install(distributions)}
                >
                  {busy === 'install'
                    ? 'Installing…'
                    : `Install ${distributions.length === 1 ? 'it' : 'them'}`}
                </button>
                <button
                  type="button"
                  className="btn btn--small"
                  disabled={busy === 'install'}
                  onClick={() => setConfirming(false)}
                >
                  Cancel
                </button>
              </div>
            </fieldset>
          )}
        </div>
      )}
      {status.proposed_error && <p className="scripts__installed muted">{status.proposed_error}</p>}
      <span role="status" className="packages__status">
        {busy === 'install' ? 'Installing packages (the progress area shows it)…' : (installed ?? '')}
      </span>
      {error && (
        <div className="callout callout--error" role="alert">
          <Icon name="alert" />
          <p>{error}</p>
        </div>
      )}
      {(native || status.native_accepted) && (
        <p className="scripts__cli muted">
          From a terminal: <code>{cli}</code>
        </p>
      )}
    </section>
  );
}
