import { useEffect, useId, useRef } from 'react';
import { Kbd } from './badges.js';

/** One group of shortcuts: a heading and its keys with what they do. */
interface ShortcutGroup {
  title: string;
  items: Array<{ keys: string[]; what: string }>;
}

function groups(mod: string, browser: boolean): ShortcutGroup[] {
  return [
    {
      title: 'Anywhere',
      items: [
        { keys: [`${mod} Shift P`], what: 'Command palette: every command by name' },
        { keys: [`${mod} K`], what: 'Search skills' },
        {
          keys: [`${mod} N`],
          // A browser keeps Ctrl N (a new window) for itself; only the desktop app gets it.
          what: browser ? 'New chat, in the desktop app (here: the + beside Chats)' : 'New chat',
        },
        { keys: [`${mod} O`], what: 'Open a workspace' },
        { keys: [`${mod} B`], what: 'Collapse or expand the sidebar' },
        { keys: [`${mod} 1`, '…', `${mod} 5`], what: 'Chat, Skills, Composer, Settings, Traces' },
        { keys: ['?'], what: 'This list (outside a text box)' },
      ],
    },
    {
      title: 'Writing a message',
      items: [
        { keys: ['Enter'], what: 'Send' },
        { keys: ['Shift Enter'], what: 'New line' },
        { keys: ['/'], what: 'Run a skill first' },
        { keys: ['Esc'], what: 'Clear the draft (with undo)' },
      ],
    },
    {
      title: 'A tool call waiting for approval',
      items: [
        { keys: [`${mod} Enter`], what: 'Allow it once' },
        { keys: [`${mod} .`], what: 'Deny it' },
        { keys: ['Shift Tab'], what: 'From the message box to its buttons (“Always allow” has no key)' },
      ],
    },
    {
      title: 'Skills and Composer',
      items: [
        { keys: ['↑', '↓'], what: 'Move through the list' },
        { keys: ['Enter'], what: 'Open the skill' },
        { keys: ['Esc'], what: 'Close it' },
        { keys: [`${mod} S`], what: 'Save the skill (Composer)' },
      ],
    },
  ];
}

/** The keyboard shortcuts, grouped; Esc, the Close button or a click outside closes it. */
export function ShortcutsDialog(props: { modKey: string; browser: boolean; onClose: () => void }) {
  const closeRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    closeRef.current?.focus();
    return () => previous?.focus?.();
  }, []);
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: clicking the backdrop closes; keyboard users have Esc
    <div
      className="scrim"
      role="presentation"
      onMouseDown={(e) => e.target === e.currentTarget && props.onClose()}
    >
      <div
        className="dialog shortcuts"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        onKeyDown={(e) => {
          // The only focusable element is Close, so Tab stays on it.
          if (e.key === 'Tab') e.preventDefault();
          if (e.key === 'Escape' || e.key === '?') {
            e.preventDefault();
            e.stopPropagation();
            props.onClose();
          }
        }}
      >
        <h2 id={titleId} className="dialog__title">
          Keyboard shortcuts
        </h2>
        <div className="shortcuts__groups">
          {groups(props.modKey, props.browser).map((g) => (
            <section key={g.title} className="shortcuts__group" aria-label={g.title}>
              <h3 className="shortcuts__title">{g.title}</h3>
              <dl className="shortcuts__list">
                {g.items.map((i) => (
                  <div key={`${g.title}:${i.what}`} className="shortcuts__row">
                    <dt>
                      {i.keys.map((k) => (k === '…' ? <span key={k}> … </span> : <Kbd key={k}>{k}</Kbd>))}
                    </dt>
                    <dd>{i.what}</dd>
                  </div>
                ))}
              </dl>
            </section>
          ))}
        </div>
        <div className="dialog__actions">
          <button ref={closeRef} type="button" className="btn" onClick={props.onClose}>
            Close
          </button>
        </div>
      </div>
    </div>
  );
}
