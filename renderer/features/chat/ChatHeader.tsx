import { useShallow } from 'zustand/react/shallow';
import { useChatStore, useProvidersStore } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';

/** The open chat's title and the model replies come from (a way to Settings either way). */
export function ChatHeader({ onSettings }: { onSettings: () => void }) {
  const title = useChatStore((s) =>
    s.activeId === null ? 'New chat' : s.sessions.items.find((i) => i.id === s.activeId)?.title || 'Chat',
  );
  const v = useProvidersStore(useShallow((s) => ({ value: s.value })));
  const chat = v.value?.chat ?? null;
  const info = chat ? v.value?.providers.find((p) => p.id === chat.provider) : undefined;
  const modelLabel = chat ? `${info?.label ?? chat.provider} · ${chat.model ?? info?.default_model}` : null;
  return (
    <header className="chat__head">
      <h1 className="pane-title chat__title" title={title}>
        {title}
      </h1>
      {v.value &&
        (modelLabel ? (
          <button
            type="button"
            className="pill pill--button chat__model"
            onClick={onSettings}
            title={`${modelLabel} — change in Settings`}
          >
            <Icon name="sparkle" /> <span className="chat__model-name">{modelLabel}</span>
          </button>
        ) : (
          <button type="button" className="pill pill--warn pill--button" onClick={onSettings}>
            <Icon name="alert" /> No model — set one up
          </button>
        ))}
    </header>
  );
}
