// A folder granted to a chat, in Chromium with the loopback provider: the user types a folder's
// path in the Files bar's "Grant a folder…" (the root is refused with the reason), the grant is
// shown with its path, read-only; the model's run_python reads a CSV under inputs/<name>/ and its
// attempt to write there is refused; the grant is revoked with its ×. Screenshots at 1440, light
// and dark.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import { expect, it } from 'vitest';
import { tempDir } from '../electron/test-support/index.js';
import { connectProvider, openChatFiles } from './browser.js';
import { describeWeb, shotSchemes } from './web-suite.js';

const READ = `import csv
rows = list(csv.DictReader(open("inputs/reports/sales.csv")))
print("total", sum(float(r["amount"]) for r in rows))
try:
    open("inputs/reports/sales.csv", "w").write("gone")
    print("wrote")
except OSError as e:
    print("write refused:", type(e).__name__)
`;

const SCRIPT = [
  { text: 'Hello. Grant me the folder and I will read it.' },
  { tool_calls: [{ name: 'run_python', arguments: { code: READ } }] },
  { text: 'The total is 105.', expect: { tool_result_contains: 'total 105.0' } },
];

const reports = join(tempDir(), 'reports');
mkdirSync(reports);
writeFileSync(join(reports, 'sales.csv'), 'region,amount\nnorth,10\nsouth,20\neast,30\nwest,45\n');

describeWeb(
  'a folder granted to a chat (Chromium)',
  { id: 'e2e/chat-folders', script: SCRIPT, page: { timeoutMs: 30_000 } },
  (web) => {
    it('grants a typed folder read-only, shows it, runs on it, and revokes it', async () => {
      await connectProvider(web.page, web.provider.url, 'sk-e2e-folders');
      await web.page.keyboard.press('Control+1');
      const composer = web.page.getByRole('textbox', { name: 'Message' });
      await composer.fill('Total the sales in my reports folder');
      await composer.press('Enter');
      await pw(web.page.getByText('Hello. Grant me the folder')).toBeVisible({ timeout: 60_000 });

      // The closed Files bar says what the chat's Python may use; the grants are inside it.
      await pw(web.page.getByTestId('chat-files-summary')).toHaveText(
        'Python: Pyodide · Network: none · Folders: none',
      );
      await openChatFiles(web.page);
      const folders = web.page.getByRole('region', { name: 'Folders granted to this chat' });
      await pw(folders).toContainText('Folders: none');
      await folders.getByRole('button', { name: 'Grant a folder…' }).click();
      const path = folders.getByRole('combobox', { name: 'Folder to grant (full path)' });
      await pw(path).toBeFocused();
      // The root of the file system is refused, with the reason.
      await path.fill('/');
      await path.press('Enter');
      await pw(folders.getByRole('alert')).toContainText('root of the file system');
      await path.fill(reports);
      await folders.getByRole('button', { name: 'Grant read-only' }).click();
      await pw(folders.getByRole('button', { name: 'Revoke reports' })).toBeVisible();
      await pw(folders).toContainText(reports);
      await pw(folders).toContainText('read-only');
      await shotSchemes(web.page, 'chat-folder-granted');
      // Folded, the bar names the folder.
      const toggle = await openChatFiles(web.page);
      await toggle.click();
      await pw(web.page.getByTestId('chat-files-summary')).toHaveText(
        'Python: Pyodide · Network: none · Folders: reports',
      );
      await shotSchemes(web.page, 'chat-files-closed');
      await openChatFiles(web.page);

      await composer.fill('Now read it');
      await composer.press('Enter');
      const card = web.page.locator('.approval');
      await pw(card).toBeVisible({ timeout: 60_000 });
      await card.getByRole('button', { name: 'Allow in this chat' }).click();
      await pw(web.page.getByText('The total is 105.')).toBeVisible({ timeout: 120_000 });
      // The result the model read: the file was there, the write to the granted folder refused.
      const result = JSON.stringify(web.provider.requests.at(-1)?.body);
      expect(result).toContain('total 105.0');
      expect(result).toContain('write refused: PermissionError');

      await folders.getByRole('button', { name: 'Revoke reports' }).click();
      await pw(folders).toContainText('Folders: none');
      // Kept on reload: none granted.
      await web.page.reload();
      await openChatFiles(web.page);
      await pw(web.page.getByRole('region', { name: 'Folders granted to this chat' })).toContainText(
        'Folders: none',
      );
      expect(web.problems).toEqual([]);
    }, 240_000);
  },
);
