import { useEffect, useId, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { FIRST_PROVIDER_CHOICE, needsBaseUrl } from '../../../electron/contract/providers.js';
import type {
  ConfiguredProviderView,
  GetSettingsRes,
  ProviderIdName,
} from '../../../electron/contract/settings.js';
import { useProvidersStore } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';
import { ApiKeyField } from './ApiKeyField.js';
import { LocalServers } from './LocalServers.js';
import { currentTest, type ProviderTest } from './providers-store.js';
import './providers.css';

/** The provider form's fields, as typed (not yet saved). */
interface ProviderDraft {
  kind: ProviderIdName;
  label: string;
  model: string;
  baseUrl: string;
}

const draftOf = (p: ConfiguredProviderView): ProviderDraft => ({
  kind: p.kind,
  label: p.label,
  model: p.model ?? '',
  baseUrl: p.base_url ?? '',
});
const blankDraft = (kind: ProviderIdName = FIRST_PROVIDER_CHOICE): ProviderDraft => ({
  kind,
  label: '',
  model: '',
  baseUrl: '',
});
const sameDraft = (a: ProviderDraft, b: ProviderDraft) =>
  a.kind === b.kind &&
  a.label.trim() === b.label.trim() &&
  a.model.trim() === b.model.trim() &&
  a.baseUrl.trim() === b.baseUrl.trim();

/**
 * The form's fields, following the saved provider when it changes, unless the user has unsaved
 * edits: settings reload often (every change anywhere), and typing must not be thrown away.
 */
function useProviderDraft(editing: string | null, saved: ConfiguredProviderView | undefined) {
  const [draft, setDraft] = useState<ProviderDraft>(saved ? draftOf(saved) : blankDraft());
  const last = useRef<{ editing: string | null; draft: ProviderDraft } | null>(null);
  const savedKey = saved ? JSON.stringify(draftOf(saved)) : null;
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed by the saved values, not the object
  useEffect(() => {
    const next = saved ? draftOf(saved) : null;
    const prev = last.current;
    last.current = { editing, draft: next ?? blankDraft() };
    if (prev?.editing !== editing) {
      // Another provider (or a new one) was opened: start from what is saved.
      setDraft((d) => next ?? blankDraft(d.kind));
      return;
    }
    if (next) setDraft((d) => (prev === null || sameDraft(d, prev.draft) ? next : d));
  }, [editing, savedKey]);
  return [draft, setDraft] as const;
}

/** A test outcome in words. */
function testLine(t: ProviderTest): string {
  const r = t.result;
  if (t.status === 'running' || !r) return 'Reading the model list…';
  if (!r.ok) return `Connection failed: ${r.error?.message ?? 'unknown error'}`;
  const n = `${r.model_count} model${r.model_count === 1 ? '' : 's'}`;
  if (r.model_listed && r.picked_model)
    return `Connected to ${r.label}: ${n} listed, no tokens spent. Chats use ${r.picked_model}, the first it serves (${r.took_ms} ms).`;
  return r.model_listed
    ? `Connected to ${r.model} on ${r.label}: ${n} listed, no tokens spent (${r.took_ms} ms).`
    : `${r.label} answered, but it does not serve ${r.model ?? 'any model yet'}: messages would fail. Choose one of its ${n} below.`;
}

/** How a test outcome looks: green only when the model chats will use is served. */
function testTone(t: ProviderTest): string {
  if (!t.result) return '';
  if (!t.result.ok) return ' is-error';
  return t.result.model_listed ? ' is-ok' : ' is-warn';
}

/** After a test found the provider's model missing: its served models, one pressed to use it. */
function ModelPick(props: { p: ConfiguredProviderView }) {
  const models = props.p.models ?? [];
  const [model, setModel] = useState(models[0] ?? '');
  const s = useProvidersStore(useShallow((st) => ({ saving: st.saving, pickModel: st.pickModel })));
  const id = useId();
  if (models.length === 0) return null;
  return (
    <div className="provider-row__pick">
      <label htmlFor={id} className="visually-hidden">
        Model for {props.p.label}
      </label>
      <div className="select">
        <select
          id={id}
          value={models.includes(model) ? model : models[0]}
          onChange={(e) => setModel(e.target.value)}
        >
          {models.map((m) => (
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
        disabled={s.saving}
        onClick={() => void s.pickModel(props.p.id, models.includes(model) ? model : models[0]!)}
      >
        Use this model
      </button>
    </div>
  );
}

/** When a model list was read, in words. */
function readWhen(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? 'earlier'
    : d.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
}

/** One configured provider: where it is, its key, its models, its last test and what to do with it. */
function ProviderRow(props: {
  p: ConfiguredProviderView;
  value: GetSettingsRes;
  editing: boolean;
  onEdit: () => void;
}) {
  const { p } = props;
  const s = useProvidersStore(
    useShallow((st) => ({
      test: currentTest(st.tests, p),
      refreshing: Boolean(st.refreshing[p.id]),
      testConnection: st.testConnection,
      refreshModels: st.refreshModels,
      setDefault: st.setDefault,
      removeProvider: st.removeProvider,
    })),
  );
  const [confirming, setConfirming] = useState(false);
  const kind = props.value.providers.find((k) => k.id === p.kind);
  const url = p.base_url ?? kind?.default_base_url ?? '';
  const key = p.has_key
    ? p.source === 'env'
      ? `Key from ${p.env_var}`
      : 'Key stored'
    : p.requires_key
      ? 'No key yet'
      : 'No key (optional)';
  return (
    <li className={`provider-row${props.editing ? ' is-editing' : ''}`} aria-label={p.label}>
      <div className="provider-row__main">
        <div className="provider-row__title">
          <strong>{p.label}</strong>
          {p.label !== kind?.label && <span className="badge badge--account">{kind?.label}</span>}
          {p.is_default && <span className="badge badge--workspace">Default</span>}
        </div>
        <div className="provider-row__meta">
          <span className="mono" title={url}>
            {url}
          </span>
          <span>· {p.effective_model ?? 'model: the first it serves, once its list is read'}</span>
        </div>
        <div className="provider-row__meta">
          <span className={p.has_key || !p.requires_key ? '' : 'provider-row__warn'}>{key}</span>
          <span>
            ·{' '}
            {p.models
              ? `${p.models.length} model${p.models.length === 1 ? '' : 's'} read ${readWhen(p.models_fetched_at ?? '')}`
              : 'Models not read yet'}
          </span>
        </div>
        {s.test && (
          <p className={`provider-row__status${testTone(s.test)}`} role="status">
            {s.test.result && (
              <Icon name={s.test.result.ok && s.test.result.model_listed ? 'check' : 'alert'} />
            )}
            {testLine(s.test)}
          </p>
        )}
        {s.test?.result?.ok && !s.test.result.model_listed && <ModelPick p={p} />}
      </div>
      <div className="provider-row__actions">
        <button
          type="button"
          className="btn btn--small"
          aria-label={`Test ${p.label}`}
          title="Reads its model list; no tokens are spent"
          disabled={s.test?.status === 'running'}
          onClick={() => void s.testConnection(p.id)}
        >
          Test
        </button>
        <button
          type="button"
          className="btn btn--small"
          aria-label={`Refresh the list of ${p.label}`}
          title="Read its model list again"
          disabled={s.refreshing}
          onClick={() => void s.refreshModels(p.id)}
        >
          <Icon name="refresh" /> Models
        </button>
        {!p.is_default && (
          <button
            type="button"
            className="btn btn--small"
            aria-label={`Make ${p.label} the default`}
            onClick={() => void s.setDefault(p.id)}
          >
            Make default
          </button>
        )}
        <button
          type="button"
          className="btn btn--small"
          aria-label={`Edit ${p.label}`}
          aria-pressed={props.editing}
          onClick={props.onEdit}
        >
          <Icon name="pencil" /> Edit
        </button>
        {confirming ? (
          <button
            type="button"
            className="btn btn--small btn--ghost-danger"
            aria-label={`Confirm removing ${p.label}`}
            onClick={() => void s.removeProvider(p.id)}
            onBlur={() => setConfirming(false)}
            // biome-ignore lint/a11y/noAutofocus: the second press confirms; focus follows the question
            autoFocus
          >
            Remove {p.label} and its key?
          </button>
        ) : (
          <button
            type="button"
            className="btn btn--small btn--icon"
            aria-label={`Remove ${p.label}`}
            title="Remove"
            onClick={() => setConfirming(true)}
          >
            <Icon name="trash" />
          </button>
        )}
      </div>
    </li>
  );
}

/** Kind, name, model and base URL of the provider being added or edited, with its key and test. */
function ProviderForm(props: { editing: string | null; onSaved: (id: string) => void; onNew: () => void }) {
  const p = useProvidersStore(
    useShallow((s) => ({
      value: s.value!,
      saving: s.saving,
      tests: s.tests,
      saveProvider: s.saveProvider,
      testConnection: s.testConnection,
    })),
  );
  const ids = { kind: useId(), label: useId(), model: useId(), base: useId(), models: useId() };
  const saved = props.editing ? p.value.configured.find((x) => x.id === props.editing) : undefined;
  const [draft, setDraft] = useProviderDraft(saved ? props.editing : null, saved);
  const info = p.value.providers.find((x) => x.id === draft.kind);
  const unchanged = saved !== undefined && sameDraft(draft, draftOf(saved));
  const test = saved ? currentTest(p.tests, saved) : null;
  const save = async (makeDefault: boolean) => {
    const id = await p.saveProvider({
      ...(saved ? { id: saved.id } : {}),
      kind: draft.kind,
      ...(draft.label.trim() ? { label: draft.label.trim() } : {}),
      ...(draft.model.trim() ? { model: draft.model.trim() } : {}),
      ...(draft.baseUrl.trim() ? { base_url: draft.baseUrl.trim() } : {}),
      make_default: makeDefault,
    });
    if (id) props.onSaved(id);
  };
  return (
    <div className="form provider-form">
      <h3 className="provider-form__title field--wide">{saved ? `Edit ${saved.label}` : 'Add a provider'}</h3>
      <div className="field">
        <label htmlFor={ids.kind}>Provider</label>
        <div className="select">
          <select
            id={ids.kind}
            value={draft.kind}
            onChange={(e) => {
              const kind = e.target.value as ProviderIdName;
              // Another kind is another provider: the form starts a new one of that kind.
              if (saved && kind !== saved.kind) props.onNew();
              setDraft({ ...blankDraft(kind) });
            }}
          >
            {p.value.providers.map((x) => (
              <option key={x.id} value={x.id}>
                {x.label}
              </option>
            ))}
          </select>
          <Icon name="chevronDown" />
        </div>
      </div>
      <div className="field">
        <label htmlFor={ids.label}>Name</label>
        <input
          id={ids.label}
          className="input"
          value={draft.label}
          placeholder={info?.label}
          onChange={(e) => setDraft({ ...draft, label: e.target.value })}
        />
        <span className="field__help">How the model menu shows it, e.g. “Ollama on the laptop”.</span>
      </div>
      <div className="field">
        <label htmlFor={ids.model}>Model</label>
        <input
          id={ids.model}
          className="input"
          value={draft.model}
          list={saved?.models ? ids.models : undefined}
          placeholder={
            info?.default_model ??
            (saved?.effective_model ? `${saved.effective_model} (first it serves)` : 'The first it serves')
          }
          onChange={(e) => setDraft({ ...draft, model: e.target.value })}
          spellCheck={false}
        />
        {saved?.models && (
          <datalist id={ids.models}>
            {saved.models.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        )}
        <span className="field__help">
          {saved?.models
            ? `${saved.models.length === 1 ? 'Its one model' : `One of its ${saved.models.length} models`}, or empty for ${saved.effective_model ?? info?.default_model}.`
            : info?.default_model
              ? `Empty: ${info.default_model}. Test the provider to pick from its list.`
              : 'Empty: the first model the server lists (read when you save).'}
        </span>
      </div>
      <div className="field">
        <label htmlFor={ids.base}>Base URL</label>
        <input
          id={ids.base}
          className="input mono"
          value={draft.baseUrl}
          placeholder={info?.default_base_url ?? 'http://127.0.0.1:11434/v1'}
          onChange={(e) => setDraft({ ...draft, baseUrl: e.target.value })}
          spellCheck={false}
        />
        <span className="field__help">
          {needsBaseUrl(draft.kind)
            ? 'Required: your server’s OpenAI-style API root (Ollama, LM Studio, llama.cpp, vLLM).'
            : 'Optional: only to use a proxy or a compatible server.'}
        </span>
      </div>
      <div className="form__actions field--wide">
        {saved?.is_default && unchanged ? (
          // A state, not a control: nothing to press while the form shows the provider in use.
          <output className="in-use">
            <Icon name="check" /> In use
          </output>
        ) : (
          <button
            type="button"
            className="btn btn--primary"
            onClick={() => void save(true)}
            disabled={p.saving}
            title="Save it and make it the default of new chats"
          >
            Use this provider
          </button>
        )}
        {!(saved && unchanged) && (
          <button type="button" className="btn" onClick={() => void save(false)} disabled={p.saving}>
            {saved ? 'Save changes' : 'Add provider'}
          </button>
        )}
        <button
          type="button"
          className="btn"
          onClick={() => saved && void p.testConnection(saved.id)}
          disabled={!saved || test?.status === 'running'}
          title={saved ? 'Read its model list (no tokens are spent)' : 'Save the provider first'}
        >
          {test?.status === 'running' ? 'Testing…' : 'Test connection'}
        </button>
      </div>
      {saved ? (
        <ApiKeyField key={saved.id} provider={saved} keyStorage={p.value.key_storage} />
      ) : (
        <p className="field__help field--wide provider-form__key-note">
          <Icon name="key" /> Its API key is asked for once the provider is saved
          {info?.requires_key ? '' : ' (local servers usually need none)'}.
        </p>
      )}
      <ProviderNotice />
    </div>
  );
}

/** What the last change said. */
function ProviderNotice() {
  const p = useProvidersStore(useShallow((s) => ({ notice: s.notice, saveError: s.saveError })));
  if (!p.notice && !p.saveError) return null;
  return (
    <p className={`form__notice${p.saveError ? ' is-error' : ''}`} role="status">
      {p.saveError ? p.saveError.message : p.notice}
    </p>
  );
}

/** Whether new chats get a title from their model: a small call after the first reply. */
function ChatTitlesField({ value }: { value: GetSettingsRes }) {
  const p = useProvidersStore(useShallow((s) => ({ saving: s.saving, setChatTitles: s.setChatTitles })));
  return (
    <div className="providers__titles">
      <label className="checkbox-row">
        <input
          type="checkbox"
          checked={value.chat_titles === 'auto'}
          disabled={p.saving || value.chat_titles_from_env}
          onChange={(e) => void p.setChatTitles(e.target.checked)}
        />
        Name new chats from their first exchange
      </label>
      <span className="field__help">
        {value.chat_titles_from_env
          ? 'Set by SKILLDESK_CHAT_TITLES when SkillDesk was started.'
          : 'One short call to the chat’s model after its first reply (a few dozen tokens). A title you set is kept.'}
      </span>
    </div>
  );
}

/** Tokens in the short form people read: 128000 → "128k", 1048576 → "1M". */
function shortTokens(n: number): string {
  if (n >= 1_000_000) return `${Number((n / 1_000_000).toFixed(1))}M`;
  if (n >= 1000) return `${Math.round(n / 1000)}k`;
  return String(n);
}

/**
 * The share of the model's context the whole skill listing may take: shown with the model's
 * context and the resulting budget, saved when the field is left (or Enter) with a valid number.
 */
function ListingBudgetField({ value }: { value: GetSettingsRes }) {
  const p = useProvidersStore(
    useShallow((s) => ({ saving: s.saving, setListingBudget: s.setListingBudget })),
  );
  const l = value.listing;
  const [text, setText] = useState(String(l.percent));
  useEffect(() => setText(String(l.percent)), [l.percent]);
  const percent = Number(text);
  const valid = text.trim() !== '' && Number.isFinite(percent) && percent >= 0 && percent <= 10;
  const commit = () => {
    if (valid && percent !== l.percent) void p.setListingBudget(percent);
  };
  const budget = valid ? Math.floor((l.context_tokens * percent) / 100) : null;
  return (
    <div className="providers__listing field">
      <label htmlFor="listing-budget">Skill listing budget</label>
      <div className="providers__listing-row">
        <input
          id="listing-budget"
          className="input providers__listing-input"
          type="number"
          min={0}
          max={10}
          step={0.1}
          value={text}
          disabled={p.saving}
          aria-invalid={!valid}
          aria-describedby="listing-budget-help"
          onChange={(e) => setText(e.target.value)}
          onBlur={commit}
          onKeyDown={(e) => e.key === 'Enter' && commit()}
        />
        <span className="providers__listing-sum" data-testid="listing-budget-sum">
          {valid
            ? `% of ${shortTokens(l.context_tokens)} tokens = ${budget!.toLocaleString('en-US')} tokens`
            : 'a number from 0 to 10'}
        </span>
      </div>
      <span id="listing-budget-help" className="field__help">
        When every enabled skill’s name and description fit this budget, all are listed in the prompt and the
        model chooses; above it, matching by words and meaning chooses, and the rest stay searchable.{' '}
        {l.model
          ? l.context_known
            ? `Context of ${l.model}: ${l.context_tokens.toLocaleString('en-US')} tokens.`
            : `The context of ${l.model} is not known here; 128k is assumed.`
          : 'No model chosen yet; 128k is assumed.'}
      </span>
    </div>
  );
}

/**
 * Settings → Providers: every provider set up here (each with its own base URL, key and model
 * list), the default of new chats, and a form to add or change one.
 */
export function ProvidersCard() {
  const p = useProvidersStore(
    useShallow((s) => ({ status: s.status, value: s.value, error: s.error, load: s.load })),
  );
  // null: the form adds a new provider. Starts on the default one, when there is one.
  const [editing, setEditing] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    void p.load();
  }, [p.load]);
  const configured = p.value?.configured ?? [];
  const current =
    editing === undefined
      ? (p.value?.chat?.provider ?? null)
      : editing !== null && !configured.some((c) => c.id === editing)
        ? null
        : editing;

  if (p.status === 'error' && p.error) {
    return (
      <section className="card">
        <h2 className="card__title">Providers</h2>
        <div className="callout callout--error" role="alert">
          <Icon name="alert" />
          <p>{p.error.message}</p>
        </div>
      </section>
    );
  }
  return (
    <section className="card" aria-labelledby="providers-title">
      <div className="providers__head">
        <h2 id="providers-title" className="card__title">
          Providers
        </h2>
        {current !== null && configured.length > 0 && (
          <button type="button" className="btn btn--small" onClick={() => setEditing(null)}>
            <Icon name="plus" /> Add a provider
          </button>
        )}
      </div>
      <p className="card__text">
        The models chat replies with: a local server and a cloud API side by side, each chat keeping the model
        it was given. Keys stay in SkillDesk’s main process: they are never shown again, and skills and this
        window never see them.
      </p>
      {p.value && configured.length === 0 && (
        <div className="callout callout--info providers__start">
          <Icon name="key" />
          <p>
            <strong>No model yet.</strong> Pick a provider and press <em>Use this provider</em>, paste its API
            key, then <em>Test connection</em>. A model server on this machine (Ollama, LM Studio, llama.cpp)
            that is running shows up above; on another port, choose OpenAI-compatible and give its base URL (a
            key is optional there, and its model comes from its own list).
          </p>
        </div>
      )}
      <LocalServers hideConfigured title="Model servers on this computer — one click to use" />
      {p.value?.warning && (
        <div className="callout callout--warn" role="alert">
          <Icon name="alert" />
          <p>{p.value.warning}</p>
        </div>
      )}
      {!p.value ? (
        <div className="skeleton skeleton--block" />
      ) : (
        <>
          {configured.length > 0 && (
            <ul className="provider-list" aria-label="Your providers">
              {configured.map((c) => (
                <ProviderRow
                  key={c.id}
                  p={c}
                  value={p.value!}
                  editing={c.id === current}
                  onEdit={() => setEditing(c.id)}
                />
              ))}
            </ul>
          )}
          <ProviderForm editing={current} onSaved={(id) => setEditing(id)} onNew={() => setEditing(null)} />
          <ChatTitlesField value={p.value} />
          <ListingBudgetField value={p.value} />
        </>
      )}
    </section>
  );
}
