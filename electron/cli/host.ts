/**
 * How a CLI command reaches the core: a host built for this one command (the CLI's flags choose
 * the model, else — for `chat` and `run-skill` — the default provider set up with `skilldesk
 * providers`), its handler table called through the in-process client, and the host disposed when
 * the command ends.
 */
// The core is imported when a command asks for a client, not when the CLI starts: `--help` and
// commands that never open the stores do not load it.
import type { Logger } from '../host.js';
import type { Llm } from '../llm/index.js';
import type { CoreClient } from '../transport/index.js';
import type { CliContext } from './context.js';

/** Diagnostics on stderr: runtime chatter only with SKILLDESK_DEBUG, failures always. */
function cliLogger(ctx: CliContext): Logger {
  const debug = Boolean(ctx.env.SKILLDESK_DEBUG);
  return {
    info: (m) => {
      if (debug) ctx.io.stderr(`${m}\n`);
    },
    error: (m, e) => {
      const detail = e instanceof Error ? (debug ? (e.stack ?? e.message) : e.message) : e ? String(e) : '';
      ctx.io.stderr(`${m}${detail ? `: ${detail}` : ''}\n`);
    },
  };
}

/** Options of {@link withClient}. */
export interface ClientOptions {
  /**
   * The model of this command (from `--provider …`), or none; a function is asked on every call.
   * `'configured'`: the default provider set up with `skilldesk providers` (Settings' model).
   */
  llm?: Llm | null | (() => Llm | null) | 'configured';
}

/**
 * Run `fn` with a client of a host opened at the global `--home`/`--workspace`; the host (stores,
 * sandbox pool, sidecar) is disposed when `fn` settles.
 */
export async function withClient<T>(
  ctx: CliContext,
  fn: (client: CoreClient) => Promise<T>,
  opts: ClientOptions = {},
): Promise<T> {
  const g = ctx.globals();
  const llm =
    opts.llm === 'configured'
      ? undefined
      : typeof opts.llm === 'function'
        ? opts.llm
        : () => (opts.llm as Llm | null | undefined) ?? null;
  const [{ createHost }, { createInProcessClient }] = await Promise.all([
    import('../host.js'),
    import('../transport/index.js'),
  ]);
  const host = createHost({
    home: g.home,
    workspace: g.workspace,
    env: ctx.env,
    mode: 'cli',
    logger: cliLogger(ctx),
    llm,
  });
  try {
    return await fn(createInProcessClient(host));
  } finally {
    await host.dispose();
  }
}

/** An AbortSignal aborted by Ctrl-C while `fn` runs (SIGINT handling restored after). */
export async function untilInterrupted<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once('SIGINT', onSignal);
  try {
    return await fn(abort.signal);
  } finally {
    process.off('SIGINT', onSignal);
  }
}
