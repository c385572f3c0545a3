import { useCallback, useEffect, useId, useState } from 'react';
import type { SkillAccessView } from '../../../electron/contract/skill-access.js';
import { useStores } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';

/**
 * An LLM skill's access, beside its system prompt: a switch per host it declares (nothing is
 * reachable until switched on) and a field per `tool_env` secret (written, never read back). Kept
 * by skill name in the main process; this view only sends changes and shows what is set.
 */
export function LlmSkillAccess({ skill }: { skill: string | null }) {
  const { client } = useStores();
  const [view, setView] = useState<SkillAccessView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const ids = useId();
  const run = useCallback(async (p: Promise<SkillAccessView>) => {
    try {
      setView(await p);
      setError(null);
    } catch (e) {
      setError((e as Error).message);
    }
  }, []);
  useEffect(() => {
    setView(null);
    if (skill) void run(client.invoke('skill-access/get', { name: skill }));
  }, [client, skill, run]);

  if (!skill) {
    return (
      <section className="sc-resource" aria-label="Network and secrets" data-testid="llm-access">
        <Icon name="alert" />
        <span className="muted">Save the skill to grant its tools network access or give them secrets.</span>
      </section>
    );
  }
  const nothing = view && view.network.length === 0 && view.tool_env.length === 0;
  return (
    <section className="sc-resource sc-llm-access" aria-label="Network and secrets" data-testid="llm-access">
      <span className="sc-resource__what">
        <strong>Network access</strong>
        {view && view.network.length === 0 && (
          <span className="muted">
            Its tools reach no host. Add a <code>network</code> list to the skill's settings to ask for one.
          </span>
        )}
        {view?.network.map((n) => (
          <label key={n.host} className="sc-llm-access__row">
            <input
              type="checkbox"
              role="switch"
              checked={n.granted}
              aria-checked={n.granted}
              aria-label={`Allow ${n.host}`}
              onChange={(e) =>
                void run(
                  client.invoke('skill-access/set-grant', {
                    name: skill,
                    host: n.host,
                    granted: e.target.checked,
                  }),
                )
              }
            />
            <code>{n.host}</code>
            <span className="muted">{n.granted ? 'allowed' : 'blocked until you allow it'}</span>
          </label>
        ))}
        {view && view.other_grants.length > 0 && (
          <span className="muted">Also allowed: {view.other_grants.join(', ')}</span>
        )}
        {view && view.tool_env.length > 0 && <strong>Secrets for its tools</strong>}
        {view?.tool_env.map((t) => (
          <form
            key={t.name}
            className="sc-llm-access__row"
            onSubmit={(e) => {
              e.preventDefault();
              const value = values[t.name] ?? '';
              void run(
                client.invoke('skill-access/set-secret', { name: skill, variable: t.name, value }),
              ).then(() => setValues((v) => ({ ...v, [t.name]: '' })));
            }}
          >
            <label htmlFor={`${ids}-${t.name}`}>
              <code>{t.name}</code>
            </label>
            <input
              id={`${ids}-${t.name}`}
              type="password"
              autoComplete="off"
              placeholder={t.has_secret ? 'set (type to replace)' : 'not set'}
              value={values[t.name] ?? ''}
              onChange={(e) => setValues((v) => ({ ...v, [t.name]: e.target.value }))}
            />
            <button type="submit" className="btn btn--small">
              {values[t.name] ? 'Save' : t.has_secret ? 'Remove' : 'Save'}
            </button>
          </form>
        ))}
        {nothing && <span className="muted">It asks for no secrets either.</span>}
        {error && (
          <span className="sc-issues" role="alert">
            <Icon name="alert" /> {error}
          </span>
        )}
      </span>
    </section>
  );
}
