import { useEffect, useId, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ProviderChoice, ProviderIdName } from '../../../electron/contract/settings.js';
import { useProvidersStore } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';
import { ApiKeyField } from './ApiKeyField.js';

/** The provider form's fields, as typed (not yet saved). */
interface ProviderDraft {
  provider: ProviderIdName;
  model: string;
  baseUrl: string;
}

const draftOf = (c: ProviderChoice): ProviderDraft => ({
  provider: c.provider,
  model: c.model ?? '',
  baseUrl: c.base_url ?? '',
});
const sameDraft = (a: ProviderDraft, b: ProviderDraft) =>
  a.provider === b.provider && a.model.trim() === b.model.trim() && a.baseUrl.trim() === b.baseUrl.trim();

/**
 * The form's fields, following the saved choice when it changes, unless the user has unsaved
 * edits: settings reload often (every change anywhere), and typing must not be thrown away.
 */
function useProviderDraft(saved: ProviderChoice | null) {
  const [draft, setDraft] = useState<ProviderDraft>({ provider: 'openai', model: '', baseUrl: '' });
  const last = useRef<ProviderDraft | null>(null);
  const savedKey = saved ? JSON.stringify(draftOf(saved)) : null;
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed by the saved values, not the object
  useEffect(() => {
    if (!saved) return;
    const next = draftOf(saved);
    const prev = last.current;
    last.current = next;
    setDraft((d) => (prev === null || sameDraft(d, prev) ? next : d));
  }, [savedKey]);
  return [draft, setDraft] as const;
}

/** Provider, model and base URL, with the buttons that save and test them. */
function ProviderForm() {
  const p = useProvidersStore(
    useShallow((s) => ({
      value: s.value!,
      saving: s.saving,
      test: s.test,
      setProvider: s.setProvider,
      testConnection: s.testConnection,
    })),
  );
  const ids = { provider: useId(), model: useId(), base: useId() };
  const saved = p.value.chat;
  const [draft, setDraft] = useProviderDraft(saved);
  const info = p.value.providers.find((x) => x.id === draft.provider);
  const isSaved = saved !== null && sameDraft(draft, draftOf(saved));
  const save = () =>
    void p.setProvider({
      provider: draft.provider,
      ...(draft.model.trim() ? { model: draft.model.trim() } : {}),
      ...(draft.baseUrl.trim() ? { base_url: draft.baseUrl.trim() } : {}),
    });
  return (
    <>
      <div className="field">
        <label htmlFor={ids.provider}>Provider</label>
        <div className="select">
          <select
            id={ids.provider}
            value={draft.provider}
            onChange={(e) => setDraft({ provider: e.target.value as ProviderIdName, model: '', baseUrl: '' })}
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
        <label htmlFor={ids.model}>Model</label>
        <input
          id={ids.model}
          className="input"
          value={draft.model}
          placeholder={info?.default_model}
          onChange={(e) => setDraft({ ...draft, model: e.target.value })}
          spellCheck={false}
        />
        <span className="field__help">Empty: {info?.default_model}</span>
      </div>
      <div className="field field--wide">
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
          {draft.provider === 'openai-compatible'
            ? 'Required: your server’s OpenAI-style API root (Ollama, LM Studio, llama.cpp, vLLM).'
            : 'Optional: only to use a proxy or a compatible server.'}
        </span>
      </div>
      <div className="form__actions field--wide">
        {isSaved ? (
          // A state, not a control: nothing to press while the form shows the provider in use.
          <output className="in-use">
            <Icon name="check" /> In use
          </output>
        ) : (
          <button type="button" className="btn btn--primary" onClick={save} disabled={p.saving}>
            Use this provider
          </button>
        )}
        <button
          type="button"
          className="btn"
          onClick={() => void p.testConnection()}
          disabled={!saved || p.test.status === 'running'}
          title={saved ? 'Send a one-token request' : 'Save a provider first'}
        >
          {p.test.status === 'running' ? 'Testing…' : 'Test connection'}
        </button>
      </div>
      <ApiKeyField key={draft.provider} info={info} keyStorage={p.value.key_storage} />
    </>
  );
}

/** What the last save and the last connection test said. */
function ProviderOutcome() {
  const p = useProvidersStore(
    useShallow((s) => ({ notice: s.notice, saveError: s.saveError, result: s.test.result })),
  );
  const { result } = p;
  return (
    <>
      {(p.notice || p.saveError) && (
        <p className={`form__notice${p.saveError ? ' is-error' : ''}`} role="status">
          {p.saveError ? p.saveError.message : p.notice}
        </p>
      )}
      {result && (
        <div
          className={`callout ${result.ok ? 'callout--success' : 'callout--error'} field--wide`}
          role="status"
        >
          <Icon name={result.ok ? 'check' : 'alert'} />
          <p>
            {result.ok
              ? `Connected to ${result.model} in ${result.took_ms} ms.`
              : `Connection failed: ${result.error?.message ?? 'unknown error'}`}
          </p>
        </div>
      )}
    </>
  );
}

/** Settings → Providers: provider, model, base URL, API key (write-only) and a connection test. */
export function ProvidersCard() {
  const p = useProvidersStore(
    useShallow((s) => ({ status: s.status, value: s.value, error: s.error, load: s.load })),
  );
  useEffect(() => {
    void p.load();
  }, [p.load]);

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
      <h2 id="providers-title" className="card__title">
        Providers
      </h2>
      <p className="card__text">
        The model chat replies with. Keys stay in SkillDesk’s main process: they are never shown again, and
        skills and this window never see them.
      </p>
      {p.value && p.value.chat === null && (
        <div className="callout callout--info providers__start">
          <Icon name="key" />
          <p>
            <strong>No model yet.</strong> Pick a provider and press <em>Use this provider</em>, paste its API
            key, then <em>Test connection</em>. For a model on this machine (Ollama, LM Studio, llama.cpp),
            choose OpenAI-compatible and give its base URL (a key is optional there).
          </p>
        </div>
      )}
      {p.value?.warning && (
        <div className="callout callout--warn" role="alert">
          <Icon name="alert" />
          <p>{p.value.warning}</p>
        </div>
      )}
      {!p.value ? (
        <div className="skeleton skeleton--block" />
      ) : (
        <div className="form">
          <ProviderForm />
          <ProviderOutcome />
        </div>
      )}
    </section>
  );
}
