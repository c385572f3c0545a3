import { useId, useState } from 'react';
import type { ConfiguredProviderView } from '../../../electron/contract/settings.js';
import { useProvidersStore } from '../../stores.js';

const SOURCE_LABEL = {
  keychain: 'in the OS keychain',
  file: 'in a private file',
  env: 'from the environment',
};

/** A provider's API key: write-only (never shown again), with where the current one comes from. */
export function ApiKeyField(props: { provider: ConfiguredProviderView; keyStorage: 'keychain' | 'file' }) {
  const info = props.provider;
  const saving = useProvidersStore((s) => s.saving);
  const setKeyOf = useProvidersStore((s) => s.setKey);
  const id = useId();
  const [key, setKey] = useState('');
  const saveKey = async () => {
    if (await setKeyOf(info.id, key)) setKey('');
  };
  return (
    <div className="field field--wide key-field">
      <label htmlFor={id}>{info.label} API key</label>
      <div className="key-row">
        <input
          id={id}
          className="input mono"
          type="password"
          autoComplete="off"
          value={key}
          placeholder={info.has_key ? '•••••••• (stored — type to replace)' : 'Paste your key'}
          onChange={(e) => setKey(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && key.trim()) void saveKey();
          }}
        />
        <button type="button" className="btn" onClick={() => void saveKey()} disabled={!key.trim() || saving}>
          Save key
        </button>
        {info.has_key && info.source !== 'env' && (
          <button type="button" className="btn btn--ghost-danger" onClick={() => void setKeyOf(info.id, '')}>
            Remove
          </button>
        )}
      </div>
      <span className="field__help">
        {info.has_key
          ? `A key is set, ${SOURCE_LABEL[info.source ?? 'file']}.`
          : info.requires_key
            ? `No key yet. You can also set ${info.env_var} before starting SkillDesk.`
            : 'Local servers usually need no key.'}{' '}
        {props.keyStorage === 'file'
          ? 'Keys entered here are stored in a file only you can read; the desktop app uses the OS keychain.'
          : 'Keys entered here are encrypted with the OS keychain.'}
      </span>
    </div>
  );
}
