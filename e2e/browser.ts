/** Shared e2e helpers: find a Chromium, start web mode in-process on a temp home. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { startWebMode } from '../electron/cli/serve-commands.js';
import type { Logger } from '../electron/host.js';
import { ensureRenderer } from '../electron/transport/renderer-build.js';
import type { WebServer } from '../electron/transport/ws-server.js';

/** The Chromium to drive: $CHROMIUM_PATH, else the first of chromium / chromium-browser / google-chrome on PATH. */
export function findChromium(): string | null {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    try {
      const path = execFileSync('which', [name], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
      if (path && existsSync(path)) return path;
    } catch {
      // Not on PATH; try the next name.
    }
  }
  return null;
}

/** Launch headless Chromium the way CI can run it (no sandbox, no GPU, no background traffic). */
export function launch(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** Web mode over a fresh temp home (seeded skills), the UI built if needed. */
export async function startApp(): Promise<{ server: WebServer; home: string; stop: () => Promise<void> }> {
  await ensureRenderer();
  const home = mkdtempSync(join(tmpdir(), 'skilldesk-e2e-'));
  const logger: Logger = { info: () => {}, error: (m, e) => console.error(m, e) };
  const { server, stop } = await startWebMode({ home, env: {}, build: false, logger });
  return {
    server,
    home,
    stop: async () => {
      await stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
