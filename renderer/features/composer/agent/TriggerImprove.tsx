import { useState } from 'react';
import type { ImproveTriggersRes, SkillScope, TriggerRates } from '../../../../electron/contract/skills.js';
import { useComposerStore, useStores } from '../../../stores.js';
import { Icon } from '../../../ui/Icon.js';
import { useModelLabel } from '../../settings/model-label.js';

const pct = (x: number | null) => (x === null ? '–' : `${Math.round(x * 100)}%`);

/** A verdict of the description loop in the words the author reads. */
export function improveVerdictLine(r: ImproveTriggersRes): string {
  switch (r.verdict) {
    case 'better':
      return 'Better: the proposal fixes trigger evals the model saw and holds up on the third it never saw.';
    case 'not_confirmed':
      return 'Not confirmed: it fixes the trigger evals the model saw, but the held-out ones it got wrong stay wrong, so it fits the examples rather than the requests. Try again, or add trigger evals in the words users write.';
    case 'held_out_worse':
      return 'Not better: it fits the trigger evals the model saw but gets more of the held-out ones wrong.';
    case 'no_better':
      return r.before.train.false_negatives + r.before.train.false_positives === 0
        ? 'Nothing to fix: phase 1 already decides every trigger eval the model would see rightly.'
        : 'No proposal did better than the current description.';
  }
}

function Rates({ label, before, after }: { label: string; before: TriggerRates; after?: TriggerRates }) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <td>
        {pct(before.recall)} / {pct(before.precision)}
      </td>
      <td>{after ? `${pct(after.recall)} / ${pct(after.precision)}` : '—'}</td>
    </tr>
  );
}

type State =
  | { state: 'idle' }
  | { state: 'busy' }
  | { state: 'done'; value: ImproveTriggersRes }
  | { state: 'error'; message: string };

/**
 * "Improve the description": the model proposes a description and trigger phrases from the
 * saved skill's trigger evals that phase 1 gets wrong, measured on the catalog as it is and
 * checked on a held-out third; the author reads the before/after rates and may put the proposal
 * into the editor (a save then runs the usual trigger-regression check).
 */
export function TriggerImprove({
  origin,
  dirty,
}: {
  origin: { name: string; scope: SkillScope };
  dirty: boolean;
}) {
  const { client } = useStores();
  const modelName = useModelLabel();
  const setField = useComposerStore((s) => s.setField);
  const [st, setSt] = useState<State>({ state: 'idle' });
  const [applied, setApplied] = useState(false);
  const run = async () => {
    setApplied(false);
    setSt({ state: 'busy' });
    const r = await client.call('skills/improve-triggers', { name: origin.name, scope: origin.scope });
    setSt(r.ok ? { state: 'done', value: r.value } : { state: 'error', message: r.error.message });
  };
  const r = st.state === 'done' ? st.value : null;
  return (
    <div className="ag-improve">
      <div className="sc-row">
        <button type="button" className="btn" disabled={st.state === 'busy'} onClick={() => void run()}>
          <Icon name="sparkle" /> Improve the description from the trigger evals
        </button>
        {st.state === 'busy' && (
          <span className="ag-progress" role="status">
            Asking the model and measuring each proposal…
          </span>
        )}
        {st.state === 'idle' && (
          <span className="muted">
            The model sees two thirds of the trigger evals; the last third checks its proposal.
            {dirty ? ' It works on the saved skill, not your unsaved edits.' : ''}
          </span>
        )}
      </div>
      {st.state === 'error' && (
        <div className="callout callout--error" role="alert">
          <Icon name="alert" />
          <p>{st.message}</p>
        </div>
      )}
      {r && (
        <div className="ag-improve__result" role="status" aria-label="Proposed description">
          <p className={`ag-score ${r.verdict === 'better' ? 'is-ok' : 'is-bad'}`}>{improveVerdictLine(r)}</p>
          <table className="ag-improve__rates">
            <thead>
              <tr>
                <th scope="col">Phase 1, recall / precision</th>
                <th scope="col">Now</th>
                <th scope="col">Proposed</th>
              </tr>
            </thead>
            <tbody>
              <Rates label={`Seen by the model (${r.train})`} before={r.before.train} after={r.best?.train} />
              <Rates label={`Held out (${r.held_out})`} before={r.before.held_out} after={r.best?.held_out} />
            </tbody>
          </table>
          {r.best && (
            <>
              <p className="ag-improve__text">{r.best.description}</p>
              {r.best.trigger_phrases.length > 0 && (
                <p className="muted">
                  Trigger phrases: {r.best.trigger_phrases.map((p) => `“${p}”`).join(', ')}
                </p>
              )}
              <div className="sc-row">
                <button
                  type="button"
                  className={`btn ${r.verdict === 'better' ? 'btn--primary' : ''}`}
                  disabled={applied}
                  onClick={() => {
                    setField('description', r.best!.description);
                    setField('trigger_phrases', r.best!.trigger_phrases.join('\n'));
                    setApplied(true);
                  }}
                >
                  {applied ? 'In the editor' : 'Use in the editor'}
                </button>
                <span className="muted">
                  {applied
                    ? 'Review it, then save: the save checks the trigger rates again.'
                    : `${r.rounds.length} proposal${r.rounds.length === 1 ? '' : 's'} by ${modelName(r.model) ?? r.model}${r.estimated_cost ? ` · $${r.estimated_cost.toFixed(4)}` : ''}`}
                </span>
              </div>
            </>
          )}
        </div>
      )}
    </div>
  );
}
