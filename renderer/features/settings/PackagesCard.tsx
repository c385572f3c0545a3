import { useEffect, useId, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useProvidersStore } from '../../stores.js';

/**
 * Where Install packages fetches skills' Python packages. Only the user sets this; a skill's
 * requirements.txt never names an index.
 */
export function PackagesCard() {
  const { value, saving, saveError, setPackageIndex } = useProvidersStore(
    useShallow((s) => ({
      value: s.value,
      saving: s.saving,
      saveError: s.saveError,
      setPackageIndex: s.setPackageIndex,
    })),
  );
  const id = useId();
  const saved = value?.packages.index_url ?? '';
  const [draft, setDraft] = useState(saved);
  useEffect(() => setDraft(saved), [saved]);
  if (!value) return null;
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="card__title">
        Python packages
      </h2>
      <p className="card__text">
        Install packages fetches the pure-Python packages a skill’s scripts declare, from PyPI unless you name
        another index here. Skills cannot choose an index.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void setPackageIndex(draft);
        }}
      >
        <div className="field">
          <label htmlFor={`${id}-index`}>Package index URL (https)</label>
          <input
            id={`${id}-index`}
            className="input"
            value={draft}
            placeholder={value.packages.effective_index_url}
            onChange={(e) => setDraft(e.target.value)}
            spellCheck={false}
          />
          <span className="field__help">
            Empty: PyPI ({'https://pypi.org/simple/'}). A simple-API index over https, without a user name or
            password in the URL.
          </span>
        </div>
        <button type="submit" className="btn" disabled={saving || draft.trim() === saved}>
          Save index
        </button>
        {saveError?.message.includes('index') && (
          <p className="form__notice is-error" role="status">
            {saveError.message}
          </p>
        )}
      </form>
    </section>
  );
}
