/** The application menu: the usual roles, plus the Skill Composer window and its shortcut. */
import { app, Menu, type MenuItemConstructorOptions } from 'electron';

/** The shortcut that opens (or focuses) the Composer window, from any window. */
export const COMPOSER_ACCELERATOR = 'CmdOrCtrl+Shift+3';

/** Install the menu; `openComposer` opens or focuses the Composer window. */
export function installMenu(opts: { openComposer: () => void }): void {
  const isMac = process.platform === 'darwin';
  const template: MenuItemConstructorOptions[] = [];
  if (isMac) {
    template.push({ label: app.name, submenu: [{ role: 'about' }, { type: 'separator' }, { role: 'quit' }] });
  }
  template.push(
    { label: 'File', submenu: [isMac ? { role: 'close' } : { role: 'quit' }] },
    { role: 'editMenu' },
    {
      label: 'Skills',
      submenu: [
        { label: 'Skill Composer', accelerator: COMPOSER_ACCELERATOR, click: () => opts.openComposer() },
      ],
    },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
  );
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}
