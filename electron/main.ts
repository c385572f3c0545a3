/**
 * The Electron main process: thin. It builds the host (the same core the CLI and web mode use),
 * serves it over IPC to the app's own window, and nothing else.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, ipcMain } from 'electron';
import { createHost, type Host } from './host.js';
import { pickFolder } from './shell/dialogs.js';
import { installMenu } from './shell/menu.js';
import { electronSandboxSpawner } from './shell/sandbox-spawn.js';
import { createKeychainSecretStore } from './shell/secrets.js';
import { createMainWindow, lockDown, openComposerWindow, rendererEntry } from './shell/window.js';
import { serveIpc } from './transport/index.js';

// Bundled to out/electron/main.js; the renderer is in out/renderer, the preload beside main.
const here = dirname(fileURLToPath(import.meta.url));
const outDir = join(here, '..');

app.setName('SkillDesk');
app.enableSandbox();

/** `--workspace DIR` from the command line (e.g. `npm start -- --workspace ~/notes`). */
function workspaceArg(argv: string[]): string | undefined {
  const i = argv.indexOf('--workspace');
  if (i >= 0) return argv[i + 1];
  return argv.find((a) => a.startsWith('--workspace='))?.slice('--workspace='.length);
}

let host: Host | undefined;
let stopIpc: (() => void) | undefined;

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    const win = BrowserWindow.getAllWindows()[0];
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });

  void app.whenReady().then(() => {
    const entry = rendererEntry(outDir);
    lockDown(entry.url);
    // The same folder the CLI uses, so both see one account store.
    const home = process.env.SKILLDESK_HOME ?? app.getPath('userData');
    const windowOpts = { preload: join(here, 'preload.cjs'), entryFile: entry.file };
    const openComposer = () => openComposerWindow(windowOpts);
    installMenu({ openComposer });
    host = createHost({
      home,
      // API keys are encrypted with the OS keychain's key, never written in the clear.
      secrets: createKeychainSecretStore(home),
      workspace: workspaceArg(process.argv),
      env: process.env,
      mode: 'electron',
      version: app.getVersion(),
      // Python runs in Electron-as-Node under the permission model (fails closed if not honoured).
      spawnSandbox: electronSandboxSpawner(),
      resourcesPath: process.resourcesPath,
      // Workspaces can be opened from the app with the OS folder dialog.
      pickFolder,
      // The chat window's "Open in a window"; the menu and its shortcut do the same.
      openWindow: () => {
        openComposer();
        return true;
      },
    });
    stopIpc = serveIpc({
      ipcMain,
      host,
      isTrustedUrl: (url) => url.split('#')[0] === entry.url,
    });
    const open = () => createMainWindow(windowOpts);
    open();
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) open();
    });
  });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  app.on('will-quit', () => {
    stopIpc?.();
    host?.dispose();
  });
}
