import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { Kbd } from './badges.js';
import { Icon, type IconName } from './Icon.js';

/** One thing the palette can do. */
export interface Command {
  id: string;
  label: string;
  icon: IconName;
  /** Its own shortcut, shown beside it so the palette teaches the keys. */
  keys?: string;
  /** More words it is found by. */
  hint?: string;
  run(): void;
}

/** The commands whose label or hint holds every word of `query` (all of them for an empty one). */
export function filterCommands(commands: readonly Command[], query: string): Command[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...commands];
  return commands.filter((c) => {
    const text = `${c.label} ${c.hint ?? ''}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}

/**
 * Every command by name: type to narrow, ↑ ↓ to choose, Enter to run, Esc to close. The command
 * runs after the palette has closed, so it can move focus where it likes.
 */
export function CommandPalette(props: { commands: readonly Command[]; onClose: () => void }) {
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const listId = useId();
  const shown = useMemo(() => filterCommands(props.commands, query), [props.commands, query]);
  const current = Math.min(active, Math.max(0, shown.length - 1));
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    input.current?.focus();
    return () => previous?.focus?.();
  }, []);
  useEffect(() => {
    document.getElementById(`${listId}-${current}`)?.scrollIntoView?.({ block: 'nearest' });
  }, [current, listId]);
  const run = (c: Command | undefined) => {
    if (!c) return;
    props.onClose();
    // After the palette's own focus handback, so the command's focus wins.
    requestAnimationFrame(() => c.run());
  };
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: clicking the backdrop closes; keyboard users have Esc
    <div
      className="scrim palette-scrim"
      role="presentation"
      onMouseDown={(e) => e.target === e.currentTarget && props.onClose()}
    >
      <div className="dialog palette" role="dialog" aria-modal="true" aria-label="Command palette">
        <div className="palette__search">
          <Icon name="search" />
          <input
            ref={input}
            role="combobox"
            aria-expanded="true"
            aria-controls={listId}
            aria-activedescendant={shown.length ? `${listId}-${current}` : undefined}
            aria-label="Command"
            placeholder="Type a command…"
            value={query}
            onChange={(e) => {
              setQuery(e.target.value);
              setActive(0);
            }}
            onKeyDown={(e) => {
              if (e.key === 'ArrowDown') {
                e.preventDefault();
                setActive((current + 1) % Math.max(1, shown.length));
              } else if (e.key === 'ArrowUp') {
                e.preventDefault();
                setActive((current - 1 + shown.length) % Math.max(1, shown.length));
              } else if (e.key === 'Enter') {
                e.preventDefault();
                run(shown[current]);
              } else if (e.key === 'Escape') {
                e.preventDefault();
                e.stopPropagation();
                props.onClose();
              } else if (e.key === 'Tab') {
                e.preventDefault();
              }
            }}
          />
        </div>
        {shown.length === 0 ? (
          <p className="palette__empty">
            No command holds “{query}”. Try “new”, “skill”, “chat”, “theme” or a view’s name.
          </p>
        ) : (
          <div id={listId} role="listbox" aria-label="Commands" className="palette__list">
            {shown.map((c, i) => (
              // biome-ignore lint/a11y/useKeyWithClickEvents: the input above drives the list from the keyboard
              <div
                key={c.id}
                id={`${listId}-${i}`}
                role="option"
                // Reached through the input's aria-activedescendant, never tabbed to.
                tabIndex={-1}
                aria-selected={i === current}
                className={`palette__item${i === current ? ' is-active' : ''}`}
                onMouseMove={() => i !== current && setActive(i)}
                onClick={() => run(c)}
              >
                <Icon name={c.icon} />
                <span className="palette__label">{c.label}</span>
                {c.keys && <Kbd>{c.keys}</Kbd>}
              </div>
            ))}
          </div>
        )}
      </div>
    </div>
  );
}
