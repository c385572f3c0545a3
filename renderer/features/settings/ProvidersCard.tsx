import { useEffect, useId, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ProviderIdName } from '../../../electron/contract/settings.js';
import { useProvidersStore } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';

const SOURCE_LABEL = {
  keychain: 'in the OS keychain',
  file: 'in a private file',
  env: 'from the environment',
};

/** Settings → Providers: provider, model, base URL, API key (write-only) and a connection test. */
export function ProvidersCard() {
  const p = useProvidersStore(
    useShallow((s) => ({
      status: s.status,
      value: s.value,
      error: s.error,
      saving: s.saving,
      notice: s.notice,
      saveError: s.saveError,
      test: s.test,
      load: s.load,
      setProvider: s.setProvider,
      setKey: s.setKey,
      testConnection: s.testConnection,
    })),
  );
  const ids = { provider: useId(), model: useId(), base: useId(), key: useId() };
  const [provider, setProvider] = useState<ProviderIdName>('openai');
  const [model, setModel] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [key, setKey] = useState('');
  useEffect(() => {
    void p.load();
  }, [p.load]);
  // Start from the saved choice once it arrives.
  const saved = p.value?.chat ?? null;
  useEffect(() => {
    if (!saved) return;
    setProvider(saved.provider);
    setModel(saved.model ?? '');
    setBaseUrl(saved.base_url ?? '');
  }, [saved]);

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
  const v = p.value;
  const info = v?.providers.find((x) => x.id === provider);
  const isSaved =
    saved !== null &&
    saved.provider === provider &&
    (saved.model ?? '') === model.trim() &&
    (saved.base_url ?? '') === baseUrl.trim();
  const save = () =>
    void p.setProvider({
      provider,
      ...(model.trim() ? { model: model.trim() } : {}),
      ...(baseUrl.trim() ? { base_url: baseUrl.trim() } : {}),
    });
  const saveKey = async () => {
    if (await p.setKey(provider, key)) setKey('');
  };
  const result = p.test.result;

  return (
    <section className="card" aria-labelledby="providers-title">
      <h2 id="providers-title" className="card__title">
        Providers
      </h2>
      <p className="card__text">
        The model chat replies with. Keys stay in SkillDesk’s main process: they are never shown again, and
        skills and this window never see them.
      </p>
      {v?.warning && (
        <div className="callout callout--warn" role="alert">
          <Icon name="alert" />
          <p>{v.warning}</p>
        </div>
      )}
      {!v ? (
        <div className="skeleton skeleton--block" />
      ) : (
        <div className="form">
          <div className="field">
            <label htmlFor={ids.provider}>Provider</label>
            <div className="select">
              <select
                id={ids.provider}
                value={provider}
                onChange={(e) => {
                  setProvider(e.target.value as ProviderIdName);
                  setModel('');
                  setBaseUrl('');
                }}
              >
                {v.providers.map((x) => (
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
              value={model}
              placeholder={info?.default_model}
              onChange={(e) => setModel(e.target.value)}
              spellCheck={false}
            />
            <span className="field__help">Empty: {info?.default_model}</span>
          </div>
          <div className="field field--wide">
            <label htmlFor={ids.base}>Base URL</label>
            <input
              id={ids.base}
              className="input mono"
              value={baseUrl}
              placeholder={info?.default_base_url ?? 'http://127.0.0.1:11434/v1'}
              onChange={(e) => setBaseUrl(e.target.value)}
              spellCheck={false}
            />
            <span className="field__help">
              {provider === 'openai-compatible'
                ? 'Required: your server’s OpenAI-style API root (Ollama, LM Studio, llama.cpp, vLLM).'
                : 'Optional: only to use a proxy or a compatible server.'}
            </span>
          </div>
          <div className="form__actions field--wide">
            <button type="button" className="btn btn--primary" onClick={save} disabled={p.saving || isSaved}>
              {isSaved ? (
                <>
                  <Icon name="check" /> In use
                </>
              ) : (
                'Use this provider'
              )}
            </button>
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

          <div className="field field--wide key-field">
            <label htmlFor={ids.key}>{info?.label} API key</label>
            <div className="key-row">
              <input
                id={ids.key}
                className="input mono"
                type="password"
                autoComplete="off"
                value={key}
                placeholder={info?.has_key ? '•••••••• (stored — type to replace)' : 'Paste your key'}
                onChange={(e) => setKey(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' && key.trim()) void saveKey();
                }}
              />
              <button
                type="button"
                className="btn"
                onClick={() => void saveKey()}
                disabled={!key.trim() || p.saving}
              >
                Save key
              </button>
              {info?.has_key && info.source !== 'env' && (
                <button
                  type="button"
                  className="btn btn--ghost-danger"
                  onClick={() => void p.setKey(provider, '')}
                >
                  Remove
                </button>
              )}
            </div>
            <span className="field__help">
              {info?.has_key
                ? `A key is set, ${SOURCE_LABEL[info.source ?? 'file']}.`
                : info?.requires_key
                  ? `No key yet. You can also set ${info.env_var} before starting SkillDesk.`
                  : 'Local servers usually need no key.'}{' '}
              {v.key_storage === 'file'
                ? 'Keys entered here are stored in a file only you can read; the desktop app uses the OS keychain.'
                : 'Keys entered here are encrypted with the OS keychain.'}
            </span>
          </div>

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
        </div>
      )}
    </section>
  );
}
