import { type RefObject, useEffect, useRef, useState } from 'react';
import { useSettingsStore, useStores } from '../../stores.js';
import { Icon, type IconName } from '../../ui/Icon.js';
import { SourcesCard } from '../sources/SourcesCard.js';
import { ToolsSettings } from '../tools/ToolsSettings.js';
import { PackagesCard } from './PackagesCard.js';
import { ProvidersCard } from './ProvidersCard.js';
import { PythonCard } from './PythonCard.js';
import { SandboxCard } from './SandboxCard.js';
import { SemanticCard } from './SemanticCard.js';
import { THEME_PREFS, type ThemePref } from './settings-store.js';

const THEME_LABELS: Record<ThemePref, { label: string; icon: IconName }> = {
  system: { label: 'System', icon: 'monitor' },
  light: { label: 'Light', icon: 'sun' },
  dark: { label: 'Dark', icon: 'moon' },
};

function PathRow({ label, path, note }: { label: string; path: string; note?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(path);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      // Clipboard access can be refused; the path stays selectable.
    }
  };
  return (
    <div className="path-row">
      <div className="path-row__text">
        <span className="path-row__label">{label}</span>
        <code className="path-row__path">{path}</code>
        {note && <span className="path-row__note">{note}</span>}
      </div>
      <button
        type="button"
        className="btn btn--small"
        onClick={() => void copy()}
        aria-label={`Copy ${label} path`}
      >
        <Icon name={copied ? 'check' : 'copy'} /> {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}

/**
 * The sections of Settings, read from the cards' own headings once they are on screen (a card
 * added later is listed without being registered here). A button scrolls its card into view and
 * moves the focus to its heading; the one in view is marked as current.
 */
function SettingsNav(props: { body: RefObject<HTMLDivElement | null> }) {
  const [sections, setSections] = useState<Array<{ id: string; title: string }>>([]);
  const [current, setCurrent] = useState<string | null>(null);
  const asked = useRef<string | null>(null);
  useEffect(() => {
    const body = props.body.current;
    if (!body) return;
    const read = () =>
      setSections(
        [...body.querySelectorAll<HTMLHeadingElement>('h2.card__title[id]')].map((h) => ({
          id: h.id,
          title: (h.textContent ?? '').trim(),
        })),
      );
    read();
    // Cards render their headings after their own data loads.
    const watch = new MutationObserver(read);
    watch.observe(body, { childList: true, subtree: true });
    // The current section: the one the user asked for until they scroll by hand, else the last
    // heading above the top third of the pane, or, scrolled to the end (where the last cards
    // cannot reach the top), the last heading in view.
    const onScroll = () => {
      const heads = [...body.querySelectorAll<HTMLHeadingElement>('h2.card__title[id]')];
      if (heads.length === 0) return;
      if (asked.current && heads.some((h) => h.id === asked.current)) {
        setCurrent(asked.current);
        return;
      }
      const box = body.getBoundingClientRect();
      const atEnd = body.scrollTop + body.clientHeight >= body.scrollHeight - 4;
      const line = box.top + box.height / 3;
      let pick = heads[0]!;
      for (const h of heads) if (h.getBoundingClientRect().top <= line) pick = h;
      if (atEnd) {
        const inView = heads.filter((h) => h.getBoundingClientRect().top < box.bottom);
        pick = inView.at(-1) ?? pick;
      }
      setCurrent(pick.id);
    };
    const byHand = () => {
      asked.current = null;
    };
    onScroll();
    body.addEventListener('scroll', onScroll, { passive: true });
    for (const e of ['wheel', 'touchstart', 'keydown'] as const)
      body.addEventListener(e, byHand, { passive: true });
    return () => {
      watch.disconnect();
      body.removeEventListener('scroll', onScroll);
      for (const e of ['wheel', 'touchstart', 'keydown'] as const) body.removeEventListener(e, byHand);
    };
  }, [props.body]);
  const go = (id: string) => {
    const h = document.getElementById(id);
    if (!h) return;
    h.closest('.card')?.scrollIntoView({ block: 'start', behavior: 'smooth' });
    h.tabIndex = -1;
    h.focus({ preventScroll: true });
    asked.current = id;
    setCurrent(id);
  };
  if (sections.length < 2) return null;
  return (
    <nav className="settings__nav" aria-label="Settings sections">
      <ul>
        {sections.map((s) => (
          <li key={s.id}>
            <button
              type="button"
              className={`settings__nav-item${current === s.id ? ' is-current' : ''}`}
              aria-current={current === s.id ? 'true' : undefined}
              onClick={() => go(s.id)}
            >
              {s.title}
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Appearance and where data lives. */
export function SettingsView() {
  const body = useRef<HTMLDivElement>(null);
  const theme = useSettingsStore((s) => s.theme);
  const setTheme = useSettingsStore((s) => s.setTheme);
  const info = useSettingsStore((s) => s.info);
  const loadInfo = useSettingsStore((s) => s.loadInfo);
  const stores = useStores();
  const openWorkspace = () => stores.workspace.getState().openPicker();
  const modKey =
    typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘' : 'Ctrl';
  useEffect(() => {
    void loadInfo();
  }, [loadInfo]);
  const v = info.value;
  return (
    <div className="settings">
      <header className="chat__head">
        <h1 className="pane-title">Settings</h1>
      </header>
      <div className="settings__main">
        <SettingsNav body={body} />
        <div className="settings__body" ref={body}>
          <ProvidersCard />
          <SandboxCard />
          <PackagesCard />
          <PythonCard />
          <SemanticCard />
          <ToolsSettings />
          <SourcesCard />
          <section className="card" aria-labelledby="appearance-title">
            <h2 id="appearance-title" className="card__title">
              Appearance
            </h2>
            <p className="card__text">System follows your operating system’s light or dark setting.</p>
            <div className="theme-picker" role="radiogroup" aria-label="Theme">
              {THEME_PREFS.map((t) => (
                // biome-ignore lint/a11y/useSemanticElements: radio cards with a preview swatch; role and aria-checked give the semantics
                <button
                  key={t}
                  type="button"
                  role="radio"
                  aria-checked={theme === t}
                  className={`theme-option theme-option--${t}${theme === t ? ' is-on' : ''}`}
                  onClick={() => setTheme(t)}
                >
                  <span className="theme-option__swatch" aria-hidden="true">
                    <span />
                    <span />
                  </span>
                  <span className="theme-option__label">
                    <Icon name={THEME_LABELS[t].icon} /> {THEME_LABELS[t].label}
                  </span>
                </button>
              ))}
            </div>
          </section>
          <section className="card" aria-labelledby="data-title">
            <h2 id="data-title" className="card__title">
              Data locations
            </h2>
            <p className="card__text">
              Skills live in two SQLite files with the same schema. When both hold a skill of the same name,
              the workspace one wins.
            </p>
            {info.status === 'error' && info.error ? (
              <div className="callout callout--error" role="alert">
                <Icon name="alert" />
                <div>
                  <p>{info.error.message}</p>
                  <button type="button" className="btn btn--small" onClick={() => void loadInfo()}>
                    Try again
                  </button>
                </div>
              </div>
            ) : !v ? (
              <div className="skeleton skeleton--block" />
            ) : (
              <div className="paths">
                <PathRow label="Account store" path={v.stores.account.file} />
                {v.stores.workspace ? (
                  <PathRow
                    label="Workspace store"
                    path={v.stores.workspace.file}
                    note={
                      v.stores.workspace.exists ? undefined : 'Created when you first save a workspace skill.'
                    }
                  />
                ) : (
                  <div className="path-row path-row--empty">
                    <div className="path-row__text">
                      <span className="path-row__label">Workspace store</span>
                      <span className="path-row__note">
                        No workspace is open: skills and chats are kept in your account. Open a project folder
                        as a workspace with {modKey} O or the workspace button at the top of the sidebar; its
                        skills, chats and traces then live in that folder.
                      </span>
                    </div>
                    <button type="button" className="btn btn--small" onClick={openWorkspace}>
                      <Icon name="folder" /> Open a workspace…
                    </button>
                  </div>
                )}
                <PathRow label="Account folder" path={v.home} />
              </div>
            )}
          </section>
          {v && (
            <section className="card card--quiet" aria-label="About">
              <p className="about">
                <strong>SkillDesk {v.version}</strong>
                <span>
                  {v.mode === 'web' ? 'Web mode (127.0.0.1)' : v.mode === 'electron' ? 'Desktop app' : 'Test'}{' '}
                  · {v.platform}
                </span>
              </p>
            </section>
          )}
        </div>
      </div>
    </div>
  );
}
