import { useEffect, useId, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { StoreApi } from 'zustand/vanilla';
import { BUNDLED_FILE_KIND } from '../../../../electron/contract/kinds.js';
import type { SkillDetail } from '../../../../electron/contract/skills.js';
import type { Client } from '../../../bridge/client.js';
import { useAppStore, useComposerStore, useProvidersStore, useStores } from '../../../stores.js';
import { Icon } from '../../../ui/Icon.js';
import { useModelLabel } from '../../settings/model-label.js';
import { bundledPath, type EditorDoc, isDirty } from '../composer-state.js';
import { draftFromSkill, draftToPackage } from '../draft.js';
import { type AgentStore, createAgentStore, type RoundItem } from './agent-store.js';
import { EvalResultItem, EvalRowsEditor, evalRowsOf, passRateDelta } from './EvalsEditor.js';
import { EVALS_FILE } from './eval-rows.js';

/** Where skill-creator keeps a skill's trigger evals beside evals/evals.json. */
const TRIGGER_EVALS_FILE = 'evals/trigger-evals.json';

/** How many entries a JSON list holds, or null when the text is not one. */
function listLength(text: string): number | null {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.length : null;
  } catch {
    return null;
  }
}

import { explainFailure, hasUsableDraft, issueInWords } from './failure.js';
import { TriggerImprove } from './TriggerImprove.js';
import './agent.css';

// One agent store per client, so closing and reopening a panel keeps its state.
const stores = new WeakMap<Client, StoreApi<AgentStore>>();
function useAgent<T>(selector: (s: AgentStore) => T): T {
  const { client } = useStores();
  let store = stores.get(client);
  if (!store) {
    store = createAgentStore(client);
    stores.set(client, store);
  }
  const api = store;
  useEffect(() => api.getState().watch(), [api]);
  return useStore(api, useShallow(selector));
}

/** A package from the agent as a Composer draft (the editor's own form). */
function packageDraft(pkg: Record<string, unknown>) {
  const skill = {
    tags: [],
    intent_patterns: [],
    trigger_phrases: [],
    modalities: [],
    requires: [],
    always_on: false,
    source: 'user',
    ...pkg,
  } as unknown as SkillDetail;
  return draftFromSkill(skill);
}

const EXAMPLES = [
  "Check a story's timeline for contradictions",
  'Turn meeting notes into action items with owners and due dates',
  'Summarize a CSV file: columns, types and outliers',
];

function Rounds({ rounds, busy }: { rounds: RoundItem[]; busy: boolean }) {
  if (!rounds.length && !busy) return null;
  const max = (rounds[0]?.max_rounds ?? 3) + 1;
  return (
    <ol className="ag-rounds" aria-label="Rounds">
      {rounds.map((r) => (
        <li key={r.round} className={`ag-round ${r.ok ? 'is-ok' : 'is-bad'}`}>
          <span className="ag-round__icon">
            <Icon name={r.ok ? 'check' : 'alert'} size={14} />
          </span>
          <div>
            <strong>
              {r.round === 0 ? 'First draft' : `Repair ${r.round}`} ·{' '}
              {r.ok
                ? 'passed every check'
                : `${r.issues.length} ${r.issues.length === 1 ? 'problem' : 'problems'}`}
            </strong>
            <span className="muted">
              {' '}
              {(r.duration_ms / 1000).toFixed(1)} s · {r.input_tokens + r.output_tokens} tokens
            </span>
            {!r.ok && (
              <ul className="ag-issues">
                {r.issues.slice(0, 6).map((i) =>
                  i.stage === 'json' ? (
                    // The parser's own words ("Unexpected token…") help nobody; they stay in the tooltip.
                    <li key={`${i.stage}:${i.path}:${i.message}`} title={i.message}>
                      {issueInWords(i)}
                    </li>
                  ) : (
                    <li key={`${i.stage}:${i.path}:${i.message}`}>
                      <code>{i.path}</code> {i.message}
                    </li>
                  ),
                )}
                {r.issues.length > 6 && <li className="muted">…and {r.issues.length - 6} more</li>}
              </ul>
            )}
          </div>
        </li>
      ))}
      {busy && (
        <li className="ag-round is-busy" role="status">
          <span className="spinner" />
          <span>
            {rounds.length === 0
              ? 'Writing the first draft…'
              : `Sending the problems back · round ${rounds.length + 1} of at most ${max}`}
          </span>
        </li>
      )}
    </ol>
  );
}

/** The configured providers' models as picker options; the value is `provider\u0000model`. */
function useModelOptions() {
  const value = useProvidersStore((s) => s.value);
  const modelName = useModelLabel();
  const chat = value?.chat ?? null;
  const configured = value?.configured ?? [];
  const def = configured.find((p) => p.id === chat?.provider);
  const defaultModel = chat ? (chat.model ?? def?.effective_model ?? null) : null;
  const groups = configured.map((p) => ({
    id: p.id,
    label: p.label,
    models: p.models ?? (p.effective_model ? [p.effective_model] : []),
  }));
  const defaultLabel = chat && defaultModel ? modelName(`${chat.provider}:${defaultModel}`) : null;
  return { groups, defaultLabel };
}

/**
 * The model an AI run writes with: the default, or any configured provider's model (the value is
 * `provider\u0000model`, empty for the default). Nothing when no provider is configured.
 */
function ModelPicker(props: { value: string; onChange: (v: string) => void; disabled: boolean }) {
  const options = useModelOptions();
  const id = useId();
  if (options.groups.length === 0) return null;
  return (
    <div className="field ag-model">
      <label htmlFor={id}>Model</label>
      <div className="select">
        <select
          id={id}
          value={props.value}
          disabled={props.disabled}
          onChange={(e) => props.onChange(e.target.value)}
        >
          <option value="">
            {options.defaultLabel ? `Default: ${options.defaultLabel}` : 'The default model'}
          </option>
          {options.groups.map((g) => (
            <optgroup key={g.id} label={g.label}>
              {g.models.map((m) => (
                <option key={m} value={`${g.id}\u0000${m}`}>
                  {g.label} · {m}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
        <Icon name="chevronDown" />
      </div>
    </div>
  );
}

/** A picker value as the model choice of a run (none: the default model). */
function modelChoice(pick: string): { provider: string; model: string } | undefined {
  const [provider, model] = pick ? pick.split('\u0000') : [];
  return provider && model ? { provider, model } : undefined;
}

/** "New skill with AI": describe it, pick a model, watch the rounds, review, open it in the editor. */
export function NewSkillWithAiDialog({ onClose }: { onClose: () => void }) {
  const a = useAgent((s) => ({ run: s.create, description: s.description, api: s }));
  const modelName = useModelLabel();
  const composer = useComposerStore(
    useShallow((s) => ({ dispatch: s.dispatch, validateNow: s.validateNow, workspaceOpen: s.workspaceOpen })),
  );
  const run = a.run;
  const text = a.description;
  const setText = (t: string) => a.api.dispatch({ type: 'description/set', text: t });
  const [pick, setPick] = useState('');
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => box.current?.focus(), []);
  const result = run.result;
  const failed = Boolean(result && !result.ok);
  const go = () => {
    if (!text.trim() || run.busy) return;
    void a.api.startCreate(text.trim(), undefined, modelChoice(pick));
  };
  const pkg = result?.draft as
    | {
        name?: string;
        description?: string;
        artifacts?: Array<{ kind: string; name: string; content: string }>;
      }
    | undefined;
  const usable = hasUsableDraft(result?.draft);
  const evals = pkg?.artifacts?.find((x) => x.name === 'evals/evals.json');
  let evalCount = 0;
  try {
    evalCount = evals ? (JSON.parse(evals.content).evals?.length ?? 0) : 0;
  } catch {
    evalCount = 0;
  }
  const accept = () => {
    if (!result || !usable) return;
    const draft = packageDraft(result.draft);
    const key = `new:ai-${Date.now().toString(36)}`;
    composer.dispatch({ type: 'doc/loading', key });
    composer.dispatch({
      type: 'doc/opened',
      doc: {
        key,
        origin: null,
        scope: composer.workspaceOpen ? 'workspace' : 'account',
        base: null,
        draft,
        context: '{}',
      },
    });
    void composer.validateNow();
    a.api.dispatch({ type: 'run/reset', which: 'create' });
    // A skill that passed is what the description asked for; one opened to fix keeps it.
    if (result.ok) setText('');
    onClose();
  };
  const close = () => {
    if (run.busy) void a.api.cancel('create');
    onClose();
  };
  const showForm = !result || failed;
  // The description box is disabled while the model writes, which drops the focus: give it back
  // when the run ends (to the description after a failure, to Accept after a success), so Esc,
  // Ctrl+Enter and Enter keep working without the mouse.
  const primary = useRef<HTMLButtonElement>(null);
  const errored = Boolean(run.error);
  useEffect(() => {
    if (run.busy) return;
    if (failed || errored) box.current?.focus();
    else if (result?.ok) primary.current?.focus();
  }, [run.busy, failed, errored, result]);
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: clicking the backdrop closes; Esc does too
    <div className="scrim" role="presentation" onMouseDown={(e) => e.target === e.currentTarget && close()}>
      <div
        className="dialog ag-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="ag-new-title"
        onKeyDown={(e) => e.key === 'Escape' && close()}
      >
        <h2 id="ag-new-title" className="dialog__title">
          <Icon name="sparkle" /> New skill with AI
        </h2>
        {showForm && (
          <>
            <label className="ag-label" htmlFor="ag-describe">
              Describe what the skill should do
            </label>
            <textarea
              id="ag-describe"
              ref={box}
              className="ag-textarea"
              rows={3}
              value={text}
              disabled={run.busy}
              placeholder="e.g. a skill that checks a story's timeline for contradictions"
              onChange={(e) => setText(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) go();
              }}
            />
            {!run.busy && !run.rounds.length && !failed && (
              <div className="ag-examples">
                {EXAMPLES.map((x) => (
                  <button key={x} type="button" className="ag-chip" onClick={() => setText(x)}>
                    {x}
                  </button>
                ))}
              </div>
            )}
            <ModelPicker value={pick} onChange={setPick} disabled={run.busy} />
            {!failed && (
              <p className="sc-field__help">
                The model writes the description, triggers, a prompt template and 3–5 evals; each draft is
                checked (schema, template syntax, a dry run on every eval) and sent back with its problems, up
                to 3 times. Nothing is saved until you do.
              </p>
            )}
          </>
        )}
        {failed && result && !run.busy && (
          <div className="callout callout--error ag-failed" role="alert">
            <Icon name="alert" />
            <div>
              <p>
                <strong>No valid skill yet.</strong> {explainFailure(result.rounds)}
              </p>
              <p className="ag-hint">
                Your description is kept. Writing a whole skill package is hard for small models: try a
                stronger model from the list above
                {modelName(result.model) ? ` (this run used ${modelName(result.model)})` : ''}, or describe
                the skill in more detail, then try again.
              </p>
            </div>
          </div>
        )}
        <Rounds rounds={run.rounds} busy={run.busy} />
        {run.error && (
          <div className="callout callout--error" role="alert">
            <Icon name="alert" />
            <p>
              {run.error.code === 'LLM_NOT_CONFIGURED'
                ? 'No model is configured: choose a provider and key in Settings, then try again.'
                : run.error.message}
            </p>
          </div>
        )}
        {result?.ok && pkg && (
          <section className="ag-review" aria-label="Review">
            <div className="callout callout--ok">
              <Icon name="check" />
              <p>
                Passed every check after {result.rounds.length}{' '}
                {result.rounds.length === 1 ? 'draft' : 'drafts'}.
              </p>
            </div>
            <h3 className="ag-review__name">{pkg.name}</h3>
            <p>{pkg.description}</p>
            <ul className="ag-artifacts">
              {(pkg.artifacts ?? []).map((x) => (
                <li key={x.name}>
                  <span className={`kind kind--${x.kind}`}>{x.kind.replace('_', ' ')}</span> {x.name}
                </li>
              ))}
            </ul>
            <p className="muted">
              {evalCount} evals · {modelName(result.model)}
            </p>
          </section>
        )}
        <div className="dialog__actions">
          {run.busy ? (
            <button type="button" className="btn" onClick={() => void a.api.cancel('create')}>
              <Icon name="stop" /> Stop
            </button>
          ) : (
            <button type="button" className="btn" onClick={close}>
              Cancel
            </button>
          )}
          {result?.ok ? (
            <>
              <button
                type="button"
                className="btn"
                onClick={() => a.api.dispatch({ type: 'run/reset', which: 'create' })}
              >
                Start over
              </button>
              <button ref={primary} type="button" className="btn btn--primary" onClick={accept}>
                Accept and open in the editor
              </button>
            </>
          ) : (
            <>
              {failed && usable && !run.busy && (
                <button
                  type="button"
                  className="btn"
                  onClick={accept}
                  title="Open the last draft to fix it by hand; your description stays here for another try"
                >
                  Open the draft to fix by hand
                </button>
              )}
              <button
                type="button"
                className="btn btn--primary"
                disabled={!text.trim() || run.busy}
                onClick={go}
                title="Ctrl+Enter"
              >
                <Icon name={failed ? 'refresh' : 'sparkle'} />{' '}
                {run.busy ? 'Writing…' : failed || run.error ? 'Try again' : 'Write the skill'}
              </button>
            </>
          )}
        </div>
      </div>
    </div>
  );
}

function Patch({ text }: { text: string }) {
  return (
    <pre className="ag-patch">
      {text.split('\n').map((l, i) => (
        <span
          // biome-ignore lint/suspicious/noArrayIndexKey: lines of one patch, in order
          key={i}
          className={
            l.startsWith('+') ? 'is-add' : l.startsWith('-') ? 'is-del' : l.startsWith('@@') ? 'is-hunk' : ''
          }
        >
          {l}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

/** Refine the open skill in conversation; accept or reject each artifact's change. */
function RefinePanel({ doc }: { doc: EditorDoc }) {
  const a = useAgent((s) => ({ run: s.refine, api: s }));
  const modelName = useModelLabel();
  const composer = useComposerStore(
    useShallow((s) => ({ dispatch: s.dispatch, validateNow: s.validateNow })),
  );
  const [text, setText] = useState('');
  const [pick, setPick] = useState('');
  const run = a.run;
  const changes = run.result?.changes ?? [];
  const accepted = changes.filter((c) => run.accepted[c.key]).length;
  const go = () => {
    if (!text.trim() || run.busy) return;
    // The agent sees the editor's draft, hand edits included.
    void a.api.startRefine(draftToPackage(doc.draft).pkg, text.trim(), modelChoice(pick));
  };
  const apply = async () => {
    const merged = await a.api.applyAccepted();
    if (!merged) return;
    composer.dispatch({ type: 'draft/replaced', draft: packageDraft(merged) });
    void composer.validateNow();
    setText('');
  };
  return (
    <section className="ag-panel" aria-label="Refine with AI">
      <div className="ag-ask">
        <input
          className="ag-input"
          aria-label="What should change?"
          placeholder='What should change? e.g. "output JSON with a contradictions array"'
          value={text}
          disabled={run.busy}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && go()}
        />
        {run.busy ? (
          <button type="button" className="btn" onClick={() => void a.api.cancel('refine')}>
            <Icon name="stop" /> Stop
          </button>
        ) : (
          <button type="button" className="btn btn--primary" disabled={!text.trim()} onClick={go}>
            <Icon name="sparkle" /> Refine
          </button>
        )}
      </div>
      <ModelPicker value={pick} onChange={setPick} disabled={run.busy} />
      <Rounds rounds={run.rounds} busy={run.busy} />
      {run.error && (
        <div className="callout callout--error" role="alert">
          <Icon name="alert" />
          <p>
            {run.error.code === 'LLM_NOT_CONFIGURED'
              ? 'No model is configured: choose one in Settings.'
              : `${run.error.message} Your request is kept: try again, or pick a stronger model above.`}
          </p>
        </div>
      )}
      {run.result && !run.result.ok && (
        <p className="muted" role="status">
          The model's answer did not validate
          {modelName(run.result.model) ? ` (${modelName(run.result.model)})` : ''}. Try again, or pick a
          stronger model above.
        </p>
      )}
      {run.result && changes.length === 0 && <p className="muted">The model changed nothing.</p>}
      {changes.length > 0 && (
        <>
          <ul className="ag-changes" aria-label="Proposed changes">
            {changes.map((c) => (
              <li key={c.key} className={`ag-change${run.accepted[c.key] ? '' : ' is-rejected'}`}>
                <label className="ag-change__head">
                  <input
                    type="checkbox"
                    checked={Boolean(run.accepted[c.key])}
                    onChange={(e) =>
                      a.api.dispatch({ type: 'change/toggled', key: c.key, accepted: e.target.checked })
                    }
                    aria-label={`Accept the change to ${c.name}`}
                  />
                  <span className={`ag-tag ag-tag--${c.change}`}>{c.change}</span>
                  <strong>{c.name}</strong>
                  {c.kind && <span className="muted">{c.kind.replace('_', ' ')}</span>}
                </label>
                <Patch text={c.patch} />
              </li>
            ))}
          </ul>
          <div className="sc-row">
            <button type="button" className="btn btn--primary" onClick={() => void apply()}>
              Apply {accepted} of {changes.length} {changes.length === 1 ? 'change' : 'changes'}
            </button>
            <button
              type="button"
              className="btn"
              onClick={() => a.api.dispatch({ type: 'run/reset', which: 'refine' })}
            >
              Discard
            </button>
            <span className="muted">Applied changes land in the editor; save when you are happy.</span>
          </div>
        </>
      )}
    </section>
  );
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** Run the saved skill's evals with progress and cancel; pass rates per model. */
function EvalsPanel({ doc }: { doc: EditorDoc }) {
  const a = useAgent((s) => ({ evals: s.evals, api: s }));
  const modelName = useModelLabel();
  const composer = useComposerStore(
    useShallow((s) => ({ openSkill: s.openSkill, setBundledFile: s.setBundledFile })),
  );
  const [localError, setLocalError] = useState<string | null>(null);
  const origin = doc.origin;
  const api = a.api;
  // Keyed by the skill alone: the store's state (and `doc.origin`'s identity) changes with every
  // event, and reopening on each would ask for the history again and again.
  const openEvals = api.openEvals;
  const originName = origin?.name;
  const originScope = origin?.scope;
  useEffect(() => {
    if (originName && originScope) void openEvals({ name: originName, scope: originScope });
  }, [originName, originScope, openEvals]);
  const e = a.evals;
  const file = doc.draft.artifacts.find((x) => x.kind === BUNDLED_FILE_KIND && bundledPath(x) === EVALS_FILE);
  const text = file?.content ?? '';
  const rows = evalRowsOf(text);
  const hasEvals = (rows?.rows.length ?? 0) > 0;
  const triggerFile = doc.draft.artifacts.find((x) => bundledPath(x) === TRIGGER_EVALS_FILE);
  const triggerFileCount = triggerFile ? listLength(triggerFile.content) : null;
  const hasTriggerEvals = (rows?.rows.some((r) => r.kind !== 'output') ?? false) || !!triggerFileCount;
  // What the user sees is what runs: an unsaved or edited skill runs as its draft, never saved.
  const asDraft = !origin || isDirty(doc);
  const run = () => {
    setLocalError(null);
    if (!asDraft) return void api.runEvals({ name: origin.name, scope: origin.scope });
    const pkg = draftToPackage(doc.draft);
    const first = pkg.issues[0];
    if (first) return setLocalError(`${first.path} ${first.message}; fix it to run the draft`);
    void api.runEvals({ name: doc.draft.name, scope: origin?.scope ?? doc.scope, draft: pkg.pkg });
  };
  const dspy = doc.base?.artifacts.find((x) => x.kind === 'dspy_module');
  // The optimized module is a new saved version: load it under the editor.
  const reload = () =>
    origin ? composer.openSkill(`${origin.scope}:${origin.name}`, true) : Promise.resolve();
  const delta = e.result ? passRateDelta(e.result) : null;
  return (
    <section className="ag-panel" aria-label="Evals">
      <EvalRowsEditor text={text} onChange={(t) => composer.setBundledFile(EVALS_FILE, t)} />
      <div className="sc-row">
        {e.busy ? (
          <button type="button" className="btn" onClick={() => void api.cancelEvals()}>
            <Icon name="stop" /> Cancel
          </button>
        ) : (
          <button type="button" className="btn btn--primary" disabled={!hasEvals} onClick={run}>
            <Icon name="activity" /> {asDraft ? 'Run evals on the draft' : 'Run evals'}
          </button>
        )}
        {e.busy && (
          <span className="ag-progress" role="status">
            <progress max={e.progress?.total ?? 1} value={e.progress?.done ?? 0} />
            {e.progress ? `${e.progress.done} of ${e.progress.total}` : 'Starting…'}
          </span>
        )}
        {asDraft && !e.busy && (
          <span className="muted">
            Runs your draft as it is now; nothing is saved{origin ? ' and the run is not remembered' : ''}.
          </span>
        )}
      </div>
      {(localError || e.error) && (
        <div className="callout callout--error" role="alert">
          <Icon name="alert" />
          <p>{localError ?? (e.error?.code === 'CANCELLED' ? 'Cancelled.' : e.error?.message)}</p>
        </div>
      )}
      {e.result && (
        <>
          <p className={`ag-score ${e.result.ok ? 'is-ok' : 'is-bad'}`}>
            <strong>{pct(e.result.pass_rate)}</strong> passed ({e.result.passed} of {e.result.total}) ·
            threshold {pct(e.result.threshold)} · {modelName(e.result.model) ?? 'no model'} ·{' '}
            {(e.result.duration_ms / 1000).toFixed(1)} s · {e.result.input_tokens + e.result.output_tokens}{' '}
            tokens
            {e.result.estimated_cost ? ` · $${e.result.estimated_cost.toFixed(4)}` : ''}
            {e.result.ran === 'draft' ? ' · draft' : ''}
          </p>
          {delta && <p className="muted ag-delta">{delta}</p>}
          {e.result.not_graded > 0 && (
            <div className="callout callout--warn" role="status">
              <Icon name="alert" />
              <p>
                {e.result.not_graded === 1 ? '1 eval was' : `${e.result.not_graded} evals were`} not graded:
                output evals send their prompt to a model and a model judges their statements. Choose a
                provider and model in Settings → Providers, then run the evals again.
              </p>
            </div>
          )}
          <ul className="ag-results" aria-label="Eval results">
            {e.result.results.map((r) => (
              <EvalResultItem key={r.id} r={r} previous={e.result!.previous ?? null} />
            ))}
          </ul>
        </>
      )}
      {triggerFileCount !== null && (
        <p className="muted">
          {triggerFileCount === 1 ? '1 trigger eval' : `${triggerFileCount} trigger evals`} in{' '}
          <code>{TRIGGER_EVALS_FILE}</code> (skill-creator&apos;s file) count too: phase 1 is measured on them
          when the skill is saved, and the improvement below uses them.
        </p>
      )}
      {origin && hasTriggerEvals && <TriggerImprove origin={origin} dirty={isDirty(doc)} />}
      {dspy && (
        <div className="ag-optimize">
          <div className="sc-row">
            {e.optimize.busy ? (
              <button type="button" className="btn" onClick={() => void api.cancelOptimize()}>
                <Icon name="stop" /> Stop optimizing
              </button>
            ) : (
              <button
                type="button"
                className="btn"
                disabled={!hasEvals || e.busy}
                onClick={() =>
                  void api.optimize(dspy.name).then((saved) => saved && !isDirty(doc) && void reload())
                }
                title="Train the DSPy module on the evals (every third one held out), save it as a new version"
              >
                <Icon name="sparkle" /> Optimize “{dspy.name}” with the evals
              </button>
            )}
            {e.optimize.busy && (
              <span className="ag-progress" role="status">
                {e.optimize.progress
                  ? `${e.optimize.progress.phase === 'compile' ? 'Compiling' : 'Scoring'} ${e.optimize.progress.done} of ${e.optimize.progress.total}`
                  : 'Running the validation evals, then DSPy…'}
              </span>
            )}
          </div>
          {e.optimize.result?.evals && (
            <p className="ag-score">
              Validation pass rate <strong>{pct(e.optimize.result.evals.before.pass_rate)}</strong> →{' '}
              <strong>{pct(e.optimize.result.evals.after.pass_rate)}</strong> on{' '}
              {e.optimize.result.evals.validation} held-out{' '}
              {e.optimize.result.evals.validation === 1 ? 'eval' : 'evals'} · saved as version{' '}
              {e.optimize.result.evals.version} ({e.optimize.result.evals.previous_version} kept in History)
            </p>
          )}
          {e.optimize.error && (
            <div className="callout callout--error" role="alert">
              <Icon name="alert" />
              <p>
                {e.optimize.error.code === 'CANCELLED'
                  ? 'Optimizing was stopped; nothing was saved.'
                  : e.optimize.error.message}
              </p>
            </div>
          )}
        </div>
      )}
      {e.history && e.history.per_model.length > 0 && (
        <table className="ag-models">
          <caption>Pass rate per model (latest run)</caption>
          <thead>
            <tr>
              <th>Model</th>
              <th>Pass rate</th>
              <th>Version</th>
              <th>Tokens</th>
              <th>Time</th>
            </tr>
          </thead>
          <tbody>
            {e.history.per_model.map((m) => (
              <tr key={m.model ?? ''}>
                <td>{modelName(m.model) ?? 'no model'}</td>
                <td>
                  {pct(m.pass_rate)} ({m.passed}/{m.total})
                </td>
                <td>{m.version}</td>
                <td>{m.input_tokens + m.output_tokens}</td>
                <td>{(m.duration_ms / 1000).toFixed(1)} s</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The agent bar under the editor head: refine with AI, evals. */
export function AgentBar({ doc }: { doc: EditorDoc }) {
  const [open, setOpen] = useState<'refine' | 'evals' | null>(null);
  const toggle = (p: 'refine' | 'evals') => setOpen((o) => (o === p ? null : p));
  return (
    <div className="ag-bar">
      <div className="sc-row">
        <button
          type="button"
          className={`btn btn--small${open === 'refine' ? ' is-on' : ''}`}
          aria-expanded={open === 'refine'}
          onClick={() => toggle('refine')}
        >
          <Icon name="sparkle" /> Refine with AI
        </button>
        <button
          type="button"
          className={`btn btn--small${open === 'evals' ? ' is-on' : ''}`}
          aria-expanded={open === 'evals'}
          onClick={() => toggle('evals')}
        >
          <Icon name="activity" /> Evals
        </button>
      </div>
      {open === 'refine' && <RefinePanel doc={doc} />}
      {open === 'evals' && <EvalsPanel doc={doc} />}
    </div>
  );
}

/** The button that opens "New skill with AI". */
export function NewWithAiButton({ className = 'btn' }: { className?: string }) {
  // One dialog for every way in (this button, + New, the catalog header, the command palette): the
  // Composer shows it while the app store says so.
  const start = useAppStore((s) => s.startNewWithAi);
  return (
    <button type="button" className={className} onClick={start}>
      <Icon name="sparkle" /> New skill with AI
    </button>
  );
}
