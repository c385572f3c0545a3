/** The app window and the navigation/permission lockdown around it. */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, dialog, nativeTheme, session, shell } from 'electron';

/** The built renderer's index.html and its file:// URL. */
export function rendererEntry(outDir: string): { file: string; url: string } {
  const file = join(outDir, 'renderer', 'index.html');
  return { file, url: pathToFileURL(file).href };
}

/** Deny every permission request and stop the page from navigating or opening windows. */
export function lockDown(trustedUrl: string): void {
  session.defaultSession.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));
  app.on('web-contents-created', (_e, contents) => {
    contents.setWindowOpenHandler(({ url }) => {
      // External http(s) links open in the user's browser, never inside the app.
      if (/^https?:\/\//.test(url)) void shell.openExternal(url);
      return { action: 'deny' };
    });
    contents.on('will-navigate', (event, url) => {
      if (url.split('#')[0] !== trustedUrl) event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });
}

/**
 * Create a window of the app: isolated, sandboxed, no Node in the page. `hash` picks what the
 * renderer shows first (`composer` for the Skill Composer window).
 */
export function createMainWindow(opts: {
  preload: string;
  entryFile: string;
  hash?: string;
  title?: string;
}): BrowserWindow {
  const win = new BrowserWindow({
    width: opts.hash === 'composer' ? 1440 : 1280,
    height: opts.hash === 'composer' ? 900 : 820,
    minWidth: 760,
    minHeight: 520,
    title: opts.title ?? 'SkillDesk',
    show: false,
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#111114' : '#f6f6f8',
    webPreferences: {
      preload: opts.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: true,
    },
  });
  win.once('ready-to-show', () => win.show());
  // A page with unsaved edits (the Composer) refuses to unload: ask, as a browser would.
  win.webContents.on('will-prevent-unload', (event) => {
    const choice = dialog.showMessageBoxSync(win, {
      type: 'question',
      buttons: ['Close anyway', 'Keep editing'],
      defaultId: 1,
      cancelId: 1,
      message: 'You have unsaved changes',
      detail: 'They are kept as a draft and come back when you open the skill again.',
    });
    if (choice === 0) event.preventDefault();
  });
  void win.loadFile(opts.entryFile, opts.hash ? { hash: opts.hash } : undefined);
  return win;
}

let composer: BrowserWindow | null = null;

/** Open the Skill Composer window, or bring the open one to the front (there is only one). */
export function openComposerWindow(opts: { preload: string; entryFile: string }): void {
  if (composer && !composer.isDestroyed()) {
    if (composer.isMinimized()) composer.restore();
    composer.focus();
    return;
  }
  composer = createMainWindow({ ...opts, hash: 'composer', title: 'Skill Composer — SkillDesk' });
  composer.on('closed', () => {
    composer = null;
  });
}
