import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron } from 'playwright-core';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function electronBinary(): string | null {
  const pathTxt = join(root, 'node_modules', 'electron', 'path.txt');
  if (!existsSync(pathTxt)) return null;
  const bin = join(root, 'node_modules', 'electron', 'dist', readFileSync(pathTxt, 'utf8').trim());
  return existsSync(bin) ? bin : null;
}

const electron = electronBinary();
if (!electron) {
  console.warn(
    'e2e/electron-smoke: skipped — no Electron binary (node_modules/electron/path.txt or its binary is missing; installed with ELECTRON_SKIP_BINARY_DOWNLOAD=1?). Web mode is tested by e2e/web-ui.test.ts.',
  );
}

describe.skipIf(!electron)('Electron app (smoke)', () => {
  it('opens a sandboxed window that lists the seeded skills over IPC', { timeout: 120_000 }, async () => {
    for (const args of [
      [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'],
      [join(root, 'scripts', 'build-electron.mjs'), '--dev'],
    ]) {
      expect(spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' }).status).toBe(0);
    }
    const home = mkdtempSync(join(tmpdir(), 'skilldesk-electron-'));
    const app = await _electron.launch({
      executablePath: electron!,
      args: [root, '--no-sandbox'],
      env: { ...process.env, SKILLDESK_HOME: home },
    });
    try {
      const page = await app.firstWindow();
      expect(await page.title()).toBe('SkillDesk');
      expect(await page.evaluate(() => typeof (window as { require?: unknown }).require)).toBe('undefined');
      await page.getByRole('button', { name: /^Skills/ }).click();
      await page.getByRole('listbox', { name: 'Skills' }).getByText('Consistency Checker').waitFor();
    } finally {
      await app.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
