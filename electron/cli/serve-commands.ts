import { spawn } from 'node:child_process';
import { InvalidArgumentError } from 'commander';
import type { Logger } from '../host.js';
import type { WebServer } from '../transport/index.js';
import type { CliContext } from './context.js';

const transportModule = () => import('../transport/index.js');
const hostModule = () => import('../host.js');

function port(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('--port must be 0–65535');
  return n;
}

/** Try to open a URL in the default browser; never fails the command. */
export function openInBrowser(url: string, platform = process.platform): boolean {
  const [cmd, args] =
    platform === 'darwin'
      ? ['open', [url]]
      : platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/** Options of web mode, shared by `skilldesk serve` and `npm start` without Electron. */
export interface ServeOptions {
  home?: string;
  workspace?: string;
  env: NodeJS.ProcessEnv;
  port?: number;
  /** Rebuild the renderer when missing or stale (default true). */
  build?: boolean;
  logger?: Logger;
}

/** Start web mode: build the UI if needed, open the stores, listen on 127.0.0.1. */
export async function startWebMode(
  opts: ServeOptions,
): Promise<{ server: WebServer; stop: () => Promise<void> }> {
  if (opts.build !== false) await (await transportModule()).ensureRenderer();
  const host = (await hostModule()).createHost({
    home: opts.home,
    workspace: opts.workspace,
    env: opts.env,
    mode: 'web',
    logger: opts.logger,
  });
  try {
    const server = await (await transportModule()).startWebServer({
      host,
      staticDir: (await transportModule()).rendererOutDir(),
      port: opts.port,
    });
    return {
      server,
      stop: async () => {
        await server.close();
        await host.dispose();
      },
    };
  } catch (e) {
    await host.dispose();
    throw e;
  }
}

/** `skilldesk serve`: the app in a browser, over a token-guarded loopback server. */
export function registerServeCommands(program: import('commander').Command, ctx: CliContext): void {
  program
    .command('serve')
    .description(
      'serve the SkillDesk UI on http://127.0.0.1 (web mode); prints the URL with its one-time token',
    )
    .option('--port <n>', 'port to listen on (default: a free one)', port)
    .option('--open', 'open the URL in the default browser', false)
    .option('--no-build', 'serve out/renderer as is (skip the rebuild check)')
    .action(async (o: { port?: number; open: boolean; build: boolean }) => {
      const g = ctx.globals();
      if (o.build) ctx.io.stderr('Checking the UI build (out/renderer)…\n');
      const { server, stop } = await startWebMode({
        home: g.home,
        workspace: g.workspace,
        env: ctx.env,
        port: o.port,
        build: o.build,
      });
      ctx.print({ url: server.url, port: server.port }, () =>
        [
          `SkillDesk is running at ${server.url}`,
          'Open that full link (the token after # lets only this browser in). Press Ctrl+C to stop.',
        ].join('\n'),
      );
      if (o.open && !openInBrowser(server.url))
        ctx.io.stderr('Could not open a browser; open the link above.\n');
      await new Promise<void>((resolve) => {
        const done = () => {
          process.off('SIGINT', done);
          process.off('SIGTERM', done);
          resolve();
        };
        process.once('SIGINT', done);
        process.once('SIGTERM', done);
      });
      await stop();
    });
}
