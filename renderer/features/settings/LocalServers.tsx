import { useEffect, useId, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { LocalServerView } from '../../../electron/contract/settings.js';
import { useProvidersStore } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';

/** Where a server listens, as people say it ("127.0.0.1:11434"). */
const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/** One server found on this machine: its models, one chosen (the first it lists), and one button. */
function LocalServerOffer(props: { server: LocalServerView; onUsed?: () => void }) {
  const { server } = props;
  const s = useProvidersStore(useShallow((st) => ({ saving: st.saving, use: st.useLocalServer })));
  const [model, setModel] = useState(server.models[0] ?? '');
  const pickId = useId();
  const n = server.models.length;
  return (
    <li className="local-server" aria-label={server.name}>
      <div className="local-server__main">
        <strong>{server.name}</strong>
        <span className="local-server__where mono">{hostOf(server.base_url)}</span>
        <span className="local-server__count">
          {n} model{n === 1 ? '' : 's'}
        </span>
      </div>
      <div className="local-server__pick">
        <label htmlFor={pickId} className="visually-hidden">
          Model of {server.name}
        </label>
        <div className="select select--small">
          <select id={pickId} value={model} onChange={(e) => setModel(e.target.value)}>
            {server.models.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
          <Icon name="chevronDown" />
        </div>
        <button
          type="button"
          className="btn btn--primary btn--small"
          disabled={s.saving || !model}
          onClick={async () => {
            if (await s.use(server, model)) props.onUsed?.();
          }}
        >
          Use {server.name}
        </button>
      </div>
    </li>
  );
}

/**
 * Model servers answering on this machine (Ollama, LM Studio, llama.cpp), each offered in one
 * click with its own models: no base URL or model name to type. Renders nothing when none answers.
 * `hideConfigured` leaves out servers already set up as a provider.
 */
export function LocalServers(props: { hideConfigured?: boolean; onUsed?: () => void; title?: string }) {
  const s = useProvidersStore(
    useShallow((st) => ({ local: st.local, find: st.findLocalServers, configured: st.value?.configured })),
  );
  useEffect(() => {
    if (s.local.status === 'idle') void s.find();
  }, [s.local.status, s.find]);
  const servers = s.local.servers.filter((x) => !(props.hideConfigured && x.configured_id));
  if (servers.length === 0) return null;
  return (
    <section className="local-servers" aria-label="Model servers on this computer">
      <p className="local-servers__title">
        <Icon name="sparkle" /> {props.title ?? 'Found on this computer'}
      </p>
      <ul className="local-servers__list">
        {servers.map((server) => (
          <LocalServerOffer key={server.base_url} server={server} onUsed={props.onUsed} />
        ))}
      </ul>
    </section>
  );
}
