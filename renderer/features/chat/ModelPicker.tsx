import { useEffect, useRef, useState } from 'react';
import type { ChatModelChoice } from '../../../electron/contract/chat.js';
import type { ListModelsRes, ProviderView } from '../../../electron/contract/settings.js';
import { toErrorData } from '../../bridge/client.js';
import { useStores } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';

/**
 * Providers a chat can use now: the one in Settings, or one with a key stored (or needing none)
 * that has a base URL of its own — an OpenAI-compatible server's URL lives only in Settings' choice,
 * so listing it otherwise offered a group with nothing in it but an error.
 */
export function usableProviders(providers: ProviderView[], current: string | null): ProviderView[] {
  return providers.filter(
    (p) => p.id === current || ((p.has_key || !p.requires_key) && p.default_base_url !== null),
  );
}

/**
 * The open chat's model: any model of any provider with a key, from the provider's own list
 * (`/models`) or SkillDesk's; "Settings’ default" lets the chat follow Settings again.
 */
export function ModelPicker(props: {
  label: string;
  own: ChatModelChoice | null;
  providers: ProviderView[];
  defaultProvider: string | null;
  onSettings: () => void;
}) {
  const stores = useStores();
  const [open, setOpen] = useState(false);
  const [lists, setLists] = useState<Record<string, ListModelsRes | { error: string }>>({});
  const ref = useRef<HTMLDivElement>(null);
  const usable = usableProviders(props.providers, props.defaultProvider);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false);
    };
    window.addEventListener('mousedown', close);
    for (const p of usable)
      if (!lists[p.id])
        stores.client.invoke('settings/list-models', { provider: p.id }).then(
          (r) => setLists((l) => ({ ...l, [p.id]: r })),
          (e: unknown) => setLists((l) => ({ ...l, [p.id]: { error: toErrorData(e).message } })),
        );
    return () => window.removeEventListener('mousedown', close);
  }, [open, usable, lists, stores]);
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
            Settings’ default <span className="muted">follow the provider chosen in Settings</span>
          </button>
          {usable.map((p) => {
            const list = lists[p.id];
            return (
              <fieldset key={p.id} className="menu__group">
                <legend className="menu__group-head">{p.label}</legend>
                {!list ? (
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
