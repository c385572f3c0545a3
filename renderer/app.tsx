import { useCallback, useEffect, useRef, useState } from 'react';
import { useStore } from 'zustand';
import type { View } from './app-store.js';
import type { ConnectionStatus } from './bridge/transport.js';
import { ChatView } from './features/chat/ChatView.js';
import { SessionList } from './features/chat/SessionList.js';
import { ComposerView } from './features/composer/index.js';
import { SettingsView } from './features/settings/SettingsView.js';
import { applyTheme, watchSystemTheme } from './features/settings/settings-store.js';
import { SkillsView } from './features/skills/SkillsView.js';
import { SourcesNotice } from './features/sources/SourcesNotice.js';
import { TracesView } from './features/traces/TracesView.js';
import { ProgressArea } from './features/workspace/ProgressArea.js';
import {
  useWorkspaceStore,
  WorkspaceButton,
  WorkspaceDialog,
} from './features/workspace/WorkspaceSwitcher.js';
import {
  type Stores,
  StoresProvider,
  useAppStore,
  useComposerStore,
  useConnectionStatus,
  useSettingsStore,
  useStores,
} from './stores.js';
import { Kbd } from './ui/badges.js';
import { type Command, CommandPalette } from './ui/CommandPalette.js';
import { Icon, type IconName } from './ui/Icon.js';
import { useMediaQuery } from './ui/media-query.js';
import { ShortcutsDialog } from './ui/ShortcutsDialog.js';

const NAV: Array<{ view: View; label: string; icon: IconName; key: string }> = [
  { view: 'chat', label: 'Chat', icon: 'chat', key: '1' },
  { view: 'skills', label: 'Skills', icon: 'skills', key: '2' },
  { view: 'composer', label: 'Composer', icon: 'pencil', key: '3' },
  { view: 'settings', label: 'Settings', icon: 'settings', key: '4' },
  { view: 'traces', label: 'Traces', icon: 'activity', key: '5' },
];

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

/** Whether a key press is going into something the user types in (so `?` is text there). */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName);
}

/**
 * Said where the user is looking (above every view) while the window cannot reach SkillDesk:
 * what is wrong, that it is retrying by itself, and what to check.
 */
function OfflineBanner({ status }: { status: ConnectionStatus }) {
  // The first connection takes a moment: only a slow one is worth a banner.
  const [slow, setSlow] = useState(false);
  useEffect(() => {
    if (status !== 'connecting') return;
    const t = setTimeout(() => setSlow(true), 1500);
    return () => clearTimeout(t);
  }, [status]);
  if (status === 'open' || (status === 'connecting' && !slow)) return null;
  return (
    <div className="offline" role="alert">
      <Icon name="unplug" />
      <p className="offline__text">
        <strong>{status === 'connecting' ? 'Connecting to SkillDesk…' : 'Not connected to SkillDesk'}</strong>
        This window can’t reach SkillDesk, so nothing can load or be saved. It keeps trying by itself; if it
        doesn’t come back, check that SkillDesk (<code>npm start</code> or <code>skilldesk serve</code>) is
        still running.
      </p>
      <span className="spinner" aria-hidden="true" />
    </div>
  );
}

function Shell() {
  const view = useAppStore((s) => s.view);
  const navigate = useAppStore((s) => s.navigate);
  const foldedByUser = useAppStore((s) => s.sidebarCollapsed);
  const toggleStoredSidebar = useAppStore((s) => s.toggleSidebar);
  const focusSearch = useAppStore((s) => s.focusSearch);
  const stores = useStores();
  // A window under 1200 px with the canvas open folds the sidebar to its rail, so the chat keeps
  // room beside the canvas; the user can still unfold it, until the canvas closes.
  const canvasOpen = useStore(stores.canvas, (s) => s.doc !== null || s.loading !== null);
  const narrow = useMediaQuery('(max-width: 1199px)');
  const [keepUnfolded, setKeepUnfolded] = useState(false);
  useEffect(() => {
    if (!canvasOpen) setKeepUnfolded(false);
  }, [canvasOpen]);
  const autoFolded = view === 'chat' && canvasOpen && narrow && !keepUnfolded && !foldedByUser;
  const collapsed = foldedByUser || autoFolded;
  const toggleSidebar = useCallback(() => {
    if (autoFolded) setKeepUnfolded(true);
    else toggleStoredSidebar();
  }, [autoFolded, toggleStoredSidebar]);
  const theme = useSettingsStore((s) => s.theme);
  const status = useConnectionStatus();
  const [help, setHelp] = useState(false);
  const [palette, setPalette] = useState(false);
  const desktop = useComposerStore((s) => s.desktop);
  const viewRef = useRef<HTMLDivElement>(null);
  // A view switch unmounts whatever had focus: start the next Tab inside the new view, not at the
  // top of the window (views that focus something of their own, like chat's message box, keep it).
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once per view switch
  useEffect(() => {
    const frame = requestAnimationFrame(() => {
      const active = document.activeElement;
      if (!active || active === document.body) viewRef.current?.focus({ preventScroll: true });
    });
    return () => cancelAnimationFrame(frame);
  }, [view]);

  useEffect(() => applyTheme(theme, document.documentElement), [theme]);
  useEffect(() => watchSystemTheme(document.documentElement), []);
  const workspaceName = useWorkspaceStore((s) => (s.current ? (s.current.name ?? 'Account only') : null));
  useEffect(() => {
    document.title = workspaceName ? `${workspaceName} — SkillDesk` : 'SkillDesk';
  }, [workspaceName]);
  useEffect(() => {
    // (Re)load on every (re)connection: a workspace may have been switched while disconnected.
    if (status === 'open') void stores.workspace.getState().load();
  }, [status, stores]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = isMac ? e.metaKey : e.ctrlKey;
      if (e.key === '?' && !mod && !e.altKey && !e.defaultPrevented && !isTyping(e.target)) {
        e.preventDefault();
        setHelp(true);
        return;
      }
      if (mod && e.shiftKey && !e.altKey && e.key.toLowerCase() === 'p') {
        e.preventDefault();
        setPalette(true);
        return;
      }
      if (!mod || e.altKey || e.shiftKey) return;
      if (e.key === '/') {
        e.preventDefault();
        setHelp(true);
        return;
      }
      if (e.key.toLowerCase() === 'k') {
        e.preventDefault();
        focusSearch();
        return;
      }
      // Ctrl B folds the sidebar as in editors; a browser leaves Ctrl B to the page.
      if (e.key.toLowerCase() === 'b') {
        e.preventDefault();
        toggleSidebar();
        return;
      }
      if (e.key.toLowerCase() === 'o') {
        e.preventDefault();
        stores.workspace.getState().openPicker();
        return;
      }
      if (e.key.toLowerCase() === 'n') {
        e.preventDefault();
        stores.chat.getState().newChat();
        stores.app.getState().focusComposer();
        return;
      }
      const nav = NAV.find((n) => n.key === e.key);
      if (nav) {
        e.preventDefault();
        navigate(nav.view);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [focusSearch, navigate, stores, toggleSidebar]);

  const modKey = isMac ? '⌘' : 'Ctrl';
  const commands = (): Command[] => {
    const chat = stores.chat.getState();
    const app = stores.app.getState();
    const setTheme = stores.settings.getState().setTheme;
    return [
      {
        id: 'new-chat',
        label: 'New chat',
        icon: 'chat',
        keys: desktop ? `${modKey} N` : undefined,
        run: () => {
          chat.newChat();
          app.focusComposer();
        },
      },
      {
        id: 'new-skill-ai',
        label: 'New skill with AI',
        icon: 'sparkle',
        hint: 'create write describe agent composer',
        run: app.startNewWithAi,
      },
      {
        id: 'new-skill',
        label: 'New skill from a template',
        icon: 'plus',
        hint: 'create composer blank prompt python dspy instructions',
        run: () => {
          app.navigate('composer');
          stores.composer.getState().askNew();
        },
      },
      { id: 'search', label: 'Search skills', icon: 'search', keys: `${modKey} K`, run: focusSearch },
      ...NAV.map(
        (n): Command => ({
          id: `go-${n.view}`,
          label: `Go to ${n.label}`,
          icon: n.icon,
          keys: `${modKey} ${n.key}`,
          run: () => navigate(n.view),
        }),
      ),
      {
        id: 'workspace',
        label: 'Open a workspace',
        icon: 'folder',
        hint: 'folder project switch',
        keys: `${modKey} O`,
        run: () => stores.workspace.getState().openPicker(),
      },
      {
        id: 'sidebar',
        label: collapsed ? 'Expand the sidebar' : 'Collapse the sidebar',
        icon: 'sidebar',
        hint: 'fold hide show',
        keys: `${modKey} B`,
        run: toggleSidebar,
      },
      {
        id: 'theme-light',
        label: 'Theme: light',
        icon: 'sun',
        hint: 'appearance',
        run: () => setTheme('light'),
      },
      {
        id: 'theme-dark',
        label: 'Theme: dark',
        icon: 'moon',
        hint: 'appearance',
        run: () => setTheme('dark'),
      },
      {
        id: 'theme-system',
        label: 'Theme: follow the system',
        icon: 'monitor',
        hint: 'appearance',
        run: () => setTheme('system'),
      },
      { id: 'shortcuts', label: 'Keyboard shortcuts', icon: 'keyboard', keys: '?', run: () => setHelp(true) },
    ];
  };
  return (
    <div className={`app${collapsed ? ' is-collapsed' : ''}`}>
      <nav className="sidebar" aria-label="Main">
        <div className="brand">
          <span className="brand__mark" aria-hidden="true">
            <Icon name="skills" />
          </span>
          <span className="brand__name">SkillDesk</span>
          <button
            type="button"
            className="btn btn--icon btn--small sidebar__toggle"
            onClick={toggleSidebar}
            aria-label={collapsed ? 'Expand the sidebar' : 'Collapse the sidebar'}
            aria-expanded={!collapsed}
            title={`${collapsed ? 'Expand' : 'Collapse'} the sidebar (${modKey} B)`}
          >
            <Icon name="sidebar" />
          </button>
        </div>
        {!collapsed && <WorkspaceButton modKey={modKey} />}
        <ul className="nav">
          {NAV.map((n) => (
            <li key={n.view}>
              <button
                type="button"
                className={`nav__item${view === n.view ? ' is-on' : ''}`}
                aria-current={view === n.view ? 'page' : undefined}
                onClick={() => navigate(n.view)}
                title={`${n.label} (${modKey} ${n.key})`}
                aria-label={collapsed ? n.label : undefined}
              >
                <Icon name={n.icon} />
                <span>{n.label}</span>
                <span className="nav__key">{`${modKey} ${n.key}`}</span>
              </button>
            </li>
          ))}
        </ul>
        <button
          type="button"
          className="sidebar__search"
          onClick={focusSearch}
          aria-label={collapsed ? 'Search skills' : undefined}
          title={`Search skills (${modKey} K)`}
        >
          <Icon name="search" />
          <span>Search skills</span>
          <Kbd>{`${modKey} K`}</Kbd>
        </button>
        {collapsed ? (
          // Folded, the chats are one key away: a new one here, the list with Ctrl B.
          <button
            type="button"
            className="sidebar__search sidebar__new"
            onClick={() => {
              stores.chat.getState().newChat();
              stores.app.getState().focusComposer();
            }}
            aria-label="New chat"
            title={`New chat (${modKey} N)`}
          >
            <Icon name="plus" />
          </button>
        ) : (
          <SessionList modKey={modKey} />
        )}
        {/* In the sidebar, above its foot: over the view it covered bubbles and a trace's facts. */}
        <SourcesNotice />
        <ProgressArea />
        <div className="sidebar__foot">
          <span className={`status status--${status}`}>
            <span className="status__dot" aria-hidden="true" />
            {status === 'open' ? 'Connected' : status === 'connecting' ? 'Connecting…' : 'Reconnecting…'}
          </span>
          <button
            type="button"
            className="sidebar__help"
            onClick={() => setHelp(true)}
            title={`Keyboard shortcuts (? or ${modKey} /)`}
          >
            <Kbd>?</Kbd>
            <span>Shortcuts</span>
          </button>
        </div>
      </nav>
      <main className="main">
        <OfflineBanner status={status} />
        <div className="main__view" ref={viewRef} tabIndex={-1}>
          {view === 'chat' && <ChatView />}
          {view === 'skills' && <SkillsView />}
          {view === 'composer' && <ComposerView />}
          {view === 'settings' && <SettingsView />}
          {view === 'traces' && <TracesView />}
        </div>
      </main>
      <WorkspaceDialog />
      {palette && <CommandPalette commands={commands()} onClose={() => setPalette(false)} />}
      {help && <ShortcutsDialog modKey={modKey} browser={!desktop} onClose={() => setHelp(false)} />}
    </div>
  );
}

/** The whole app over a set of stores. */
export function App({ stores }: { stores: Stores }) {
  return (
    <StoresProvider stores={stores}>
      <Shell />
    </StoresProvider>
  );
}

/** Shown when the page was opened without its token (web mode). */
export function NoConnection() {
  return (
    <div className="gate">
      <div className="gate__box">
        <span className="brand__mark" aria-hidden="true">
          <Icon name="skills" />
        </span>
        <h1>Open SkillDesk from its link</h1>
        <p>
          For your safety this page only talks to SkillDesk with the one-time token in the link that{' '}
          <code>npm start</code> or <code>skilldesk serve</code> printed. Open that full link (it ends in{' '}
          <code>#token=…</code>), or restart the server to get a new one.
        </p>
      </div>
    </div>
  );
}
