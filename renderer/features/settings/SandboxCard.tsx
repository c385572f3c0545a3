import { useShallow } from 'zustand/react/shallow';
import { useProvidersStore } from '../../stores.js';

const HEADLINE: Record<string, string> = {
  bwrap: 'Isolated by the operating system',
  unshare: 'Network isolated by the operating system',
  'sandbox-exec': 'Network isolated by the operating system',
  none: 'In-process isolation only',
};

/** How the Python sandbox is confined on this machine, and the choice to accept less. */
export function SandboxCard() {
  const { value, saving, setSandbox } = useProvidersStore(
    useShallow((s) => ({ value: s.value, saving: s.saving, setSandbox: s.setSandbox })),
  );
  const sb = value?.sandbox;
  if (!sb) return null;
  const weak = sb.method === 'none';
  return (
    <section className="card" aria-labelledby="sandbox-title">
      <h2 id="sandbox-title" className="card__title">
        Python sandbox
      </h2>
      <p className="card__text">
        Skills’ Python runs in a WebAssembly interpreter inside a separate process. The operating system takes
        the network away from that process; the app checks it every time the sandbox starts.
      </p>
      <p
        className={weak ? 'sandbox-status sandbox-status--warn' : 'sandbox-status'}
        role={weak ? 'alert' : undefined}
      >
        <strong>{HEADLINE[sb.method] ?? sb.method}.</strong> {sb.detail.charAt(0).toUpperCase()}
        {sb.detail.slice(1)}.
      </p>
      {weak && (
        <>
          <p className="card__text">
            Without an operating-system sandbox, a skill that escapes the interpreter could reach your
            network. Code does not run until you accept this. On Linux, installing <code>bubblewrap</code>{' '}
            removes the risk.
          </p>
          <label className="checkbox-row">
            <input
              type="checkbox"
              checked={sb.allow_in_process_isolation}
              disabled={saving}
              onChange={(e) => void setSandbox(e.target.checked)}
            />
            Run code with in-process isolation only
          </label>
        </>
      )}
    </section>
  );
}
