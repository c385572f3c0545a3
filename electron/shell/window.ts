/** The app window and the navigation/permission lockdown around it. */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, nativeTheme, session, shell } from 'electron';

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

/** Create the main window: isolated, sandboxed, no Node in the page. */
export function createMainWindow(opts: { preload: string; entryFile: string }): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 760,
    minHeight: 520,
    title: 'SkillDesk',
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
  void win.loadFile(opts.entryFile);
  return win;
}
