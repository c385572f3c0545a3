/** Native dialogs for the host (thin: the host validates whatever comes back). */
import { BrowserWindow, dialog } from 'electron';

/** The OS folder picker over the focused window; null when cancelled. */
export async function pickFolder(): Promise<string | null> {
  const win = BrowserWindow.getFocusedWindow() ?? BrowserWindow.getAllWindows()[0];
  const options: Electron.OpenDialogOptions = {
    title: 'Open a workspace folder',
    buttonLabel: 'Open Workspace',
    properties: ['openDirectory', 'createDirectory'],
  };
  const r = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
  return r.canceled ? null : (r.filePaths[0] ?? null);
}
