import { useCallback, useEffect, useId, useRef, useState } from 'react';
import type { SemanticStatusRes } from '../../../electron/contract/skills.js';
import { useStores } from '../../stores.js';

/** How often the card asks again while vectors are being computed. */
const POLL_MS = 1000;

/**
 * Matching by meaning (the e5 model): whether it is in use, how many skills have their vector,
 * and the vectors being computed (after an import, in the background, or asked for here). A skill
 * without one is matched by its words meanwhile, so nothing here blocks a chat.
 */
export function SemanticCard() {
  const { client } = useStores();
  const id = useId();
  const [state, setState] = useState<SemanticStatusRes | null>(null);
  const [progress, setProgress] = useState<{ embedded: number; total: number } | null>(null);
  const [asked, setAsked] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const alive = useRef(true);
  const load = useCallback(() => {
    client
      .invoke('skills/semantic-status', {})
      .then((s) => alive.current && setState(s))
      .catch(() => alive.current && setState(null));
  }, [client]);
  useEffect(() => {
    alive.current = true;
    load();
    const off = client.subscribe('skills/catalog-changed', load);
    return () => {
      alive.current = false;
      off();
    };
  }, [client, load]);
  // While vectors are being computed (here or in the background), follow them.
  useEffect(() => {
    if (!state?.embedding && !asked) return;
    const t = setInterval(load, POLL_MS);
    return () => clearInterval(t);
  }, [state?.embedding, asked, load]);
  if (!state) return null;

  const prepare = async () => {
    const runId = `settings-${Date.now()}`;
    setAsked(true);
    setError(null);
    const off = client.subscribe('skills/embed-progressed', (p) => {
      if (p.run_id === runId && alive.current) setProgress({ embedded: p.embedded, total: p.total });
    });
    try {
      await client.invoke('skills/embed', { run_id: runId });
    } catch (e) {
      if (alive.current) setError((e as Error).message);
    } finally {
      off();
      if (alive.current) {
        setAsked(false);
        setProgress(null);
        load();
      }
    }
  };

  const available = state.model !== undefined;
  // With the second model, a skill is ready when both have its vector: counted as the progress
  // events count it (both models' vectors over two).
  const both = state.second?.model !== undefined ? state.second : null;
  const embedded =
    progress?.embedded ?? (both ? Math.floor((state.embedded + both.embedded) / 2) : state.embedded);
  const total = progress?.total ?? state.total;
  const pending = Math.max(0, total - embedded);
  const running = asked || state.embedding;
  const skills = (n: number) => `${n.toLocaleString()} ${n === 1 ? 'skill' : 'skills'}`;
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="card__title">
        Matching by meaning
      </h2>
      <p className="card__text">
        Skills are matched to what you write by their words at once, and by meaning with{' '}
        {state.second?.model
          ? 'two small language models that run on this computer.'
          : 'a small language model that runs on this computer.'}{' '}
        A skill can be matched by meaning once its vector is computed: on import and in the background. Until
        then it is matched by its words.
      </p>
      {!available ? (
        <p className="sandbox-status sandbox-status--warn" data-testid="semantic-status">
          <strong>Off.</strong> Skills are matched by their words only:{' '}
          {state.reason ?? 'the model is not available'}.
        </p>
      ) : running ? (
        <div className="sandbox-status" data-testid="semantic-status" aria-live="polite">
          <strong>Preparing.</strong> {embedded.toLocaleString()} of {skills(total)} have a vector; the rest
          are matched by their words meanwhile.
          <progress
            className="semantic-progress"
            value={embedded}
            max={Math.max(total, 1)}
            aria-label="Skills with a vector"
          />
        </div>
      ) : total === 0 ? (
        <p className="sandbox-status" data-testid="semantic-status">
          <strong>On.</strong> No skills yet: each one you add is prepared as it comes.
        </p>
      ) : pending === 0 ? (
        <p className="sandbox-status" data-testid="semantic-status">
          <strong>On.</strong> All {skills(total)} can be matched by meaning.
        </p>
      ) : (
        <p className="sandbox-status" data-testid="semantic-status">
          <strong>On.</strong> {embedded.toLocaleString()} of {skills(total)} have a vector.{' '}
          {pending === 1
            ? 'The other one is matched by its words until its vector is computed.'
            : `The other ${pending.toLocaleString()} are matched by their words until theirs are computed.`}
        </p>
      )}
      {available && !running && pending > 0 && (
        <div className="semantic-actions">
          <button type="button" className="btn" onClick={() => void prepare()}>
            Prepare {skills(pending)} now
          </button>
        </div>
      )}
      {error && (
        <p className="form__notice is-error" role="alert">
          Could not prepare the skills: {error}
        </p>
      )}
      {available && state.model && (
        <p className="field__help semantic-model">
          {both?.model ? `Models: ${state.model} and ${both.model}` : `Model: ${state.model}`}
        </p>
      )}
    </section>
  );
}
