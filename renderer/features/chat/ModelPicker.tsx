import { useCallback, useEffect, useRef, useState } from 'react';
import type { ChatModelChoice } from '../../../electron/contract/chat.js';
import type { ConfiguredProviderView, ListModelsRes } from '../../../electron/contract/settings.js';
import { toErrorData } from '../../bridge/client.js';
import { useStores } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';

/**
 * The open chat's model: any model of any provider set up in Settings, grouped by provider, from
 * the provider's own list (`/models`, read once and kept; ↻ reads it again) or SkillDesk's;
 * "Settings’ default" lets the chat follow the default again.
 */
export function ModelPicker(props: {
  label: string;
  own: ChatModelChoice | null;
  providers: ConfiguredProviderView[];
  onSettings: () => void;
}) {
  const stores = useStores();
  const [open, setOpen] = useState(false);
  const [lists, setLists] = useState<Record<string, ListModelsRes | { error: string } | 'loading'>>({});
  const ref = useRef<HTMLDivElement>(null);
  const fetchList = useCallback(
    (id: string, refresh: boolean) => {
      setLists((l) => ({ ...l, [id]: 'loading' }));
      stores.client.invoke('settings/list-models', { provider: id, ...(refresh ? { refresh } : {}) }).then(
        (r) => setLists((l) => ({ ...l, [id]: r })),
        (e: unknown) => setLists((l) => ({ ...l, [id]: { error: toErrorData(e).message } })),
      );
    },
    [stores],
  );
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false);
    };
    window.addEventListener('mousedown', close);
    for (const p of props.providers) if (!lists[p.id]) fetchList(p.id, false);
    return () => window.removeEventListener('mousedown', close);
  }, [open, props.providers, lists, fetchList]);
  const choose = (model: ChatModelChoice | null) => {
    setOpen(false);
    void stores.chat.getState().setModel(model);
  };
  return (
    <div className="menu chat__model-menu" ref={ref}>
      <button
        type="button"
        className={`pill pill--button chat__model${props.own ? ' is-own' : ''}`}
        aria-haspopup="menu"
        aria-expanded={open}
        title={props.own ? `${props.label} — this chat’s own model` : `${props.label} — from Settings`}
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') setOpen(false);
        }}
      >
        <Icon name="sparkle" /> <span className="chat__model-name">{props.label}</span>
        <Icon name="chevronDown" />
      </button>
      {open && (
        <div className="menu__list menu__list--models" role="menu" aria-label="Model for this chat">
          <button
            type="button"
            role="menuitemradio"
            aria-checked={props.own === null}
            className="menu__item"
            onClick={() => choose(null)}
          >
            Settings’ default <span className="muted">follow the default provider in Settings</span>
          </button>
          {props.providers.map((p) => {
            const list = lists[p.id];
            return (
              <fieldset key={p.id} className="menu__group">
                <legend className="menu__group-head">
                  {p.label}
                  {p.is_default && <span className="muted"> · default</span>}
                </legend>
                <button
                  type="button"
                  className="btn btn--icon btn--small menu__group-refresh"
                  aria-label={`Read the models of ${p.label} again`}
                  title="Read its model list again"
                  disabled={list === 'loading'}
                  onClick={() => fetchList(p.id, true)}
                >
                  <Icon name="refresh" />
                </button>
                {!list || list === 'loading' ? (
                  <p className="menu__note">Loading models…</p>
                ) : 'error' in list ? (
                  <p className="menu__note">{list.error}</p>
                ) : (
                  <>
                    {list.warning && <p className="menu__note">{list.warning}</p>}
                    {list.models.slice(0, 40).map((m) => (
                      <button
                        key={m}
                        type="button"
                        role="menuitemradio"
                        aria-checked={props.own?.provider === p.id && props.own.model === m}
                        className="menu__item menu__item--model"
                        onClick={() => choose({ provider: p.id, model: m })}
                      >
                        {m}
                      </button>
                    ))}
                  </>
                )}
              </fieldset>
            );
          })}
          <button
            type="button"
            className="menu__item"
            onClick={() => {
              setOpen(false);
              props.onSettings();
            }}
          >
            Providers and keys… <span className="muted">add another provider in Settings</span>
          </button>
        </div>
      )}
    </div>
  );
}
