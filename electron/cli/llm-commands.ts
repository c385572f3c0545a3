import { resolve } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
// Provider ids from the contract (what the options list); the llm package itself is loaded only
// by a command that starts a model or the loopback provider.
import { PROVIDER_ID_VALUES as PROVIDER_IDS } from '../contract/settings.js';
import type { RecordedRequest } from '../llm/index.js';
import type { CliContext } from './context.js';

function portNumber(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('--port must be 0..65535');
  return n;
}

/**
 * Add the provider flags shared by model-calling commands (`run-skill`, `chat` …):
 * `--provider P --model M --base-url URL --api-key-env VAR`. Read them back with
 * `llmConfigFromFlags(cmd.opts(), ctx.env)` from `electron/llm`.
 */
export function addLlmOptions(cmd: Command, opts: { configured?: boolean } = {}): Command {
  // `configured`: the command falls back to the default provider set up with `skilldesk providers`.
  const fallback = opts.configured ? ', else the default set up with `skilldesk providers`' : '';
  return cmd
    .addOption(
      new Option('--provider <id>', `LLM provider (default: $SKILLDESK_PROVIDER${fallback})`).choices(
        PROVIDER_IDS,
      ),
    )
    .option('--model <id>', "model id (default: $SKILLDESK_MODEL, else the provider's default)")
    .option('--base-url <url>', 'API base URL, e.g. http://127.0.0.1:11434/v1 (default: $SKILLDESK_BASE_URL)')
    .option(
      '--api-key-env <var>',
      "environment variable holding the key (default: the provider's, e.g. OPENAI_API_KEY)",
    );
}

/** Resolves on the first SIGINT or SIGTERM, then stops listening for them. */
function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolveSignal) => {
    const on = (sig: NodeJS.Signals) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolveSignal(sig);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

function logLine(r: RecordedRequest, json: boolean): string {
  if (json) {
    return `${JSON.stringify({
      event: 'request',
      index: r.index,
      method: r.method,
      path: r.path,
      kind: r.kind,
      stream: r.stream,
      status: r.status ?? null,
      turn: r.turn === null ? null : r.turn + 1,
      ...(r.client_closed ? { client_closed: true } : {}),
      ...(r.expectation_error ? { expectation_error: r.expectation_error } : {}),
    })}\n`;
  }
  const turn = r.turn === null ? '' : ` turn ${r.turn + 1}`;
  const extra = [r.stream ? 'stream' : '', r.client_closed ? 'client closed' : '', r.expectation_error ?? '']
    .filter(Boolean)
    .join(', ');
  return `${r.method} ${r.path} → ${r.status ?? '-'}${turn}${extra ? ` (${extra})` : ''}\n`;
}

/** The `dev provider` command: the loopback provider server in the foreground. */
export function registerLlmCommands(program: Command, ctx: CliContext): void {
  const dev =
    program.commands.find((c) => c.name() === 'dev') ??
    program.command('dev').description('developer tools (fake providers, diagnostics)');
  dev
    .command('provider')
    .description(
      'run a loopback LLM provider speaking the OpenAI chat-completions and Anthropic Messages wire formats, ' +
        'replying from a script of turns; stops on Ctrl-C',
    )
    .requiredOption('--script <file>', 'JSON script: an array of turns, or {turns, models?, api_key?}')
    .option('--port <n>', 'port on 127.0.0.1 (0 picks a free one)', portNumber, 0)
    .action(async (opts: { script: string; port: number }) => {
      const json = ctx.globals().json;
      const { loadLoopbackScript, startLoopbackProvider } = await import('../llm/index.js');
      const script = loadLoopbackScript(resolve(opts.script));
      const server = await startLoopbackProvider({
        port: opts.port,
        script,
        onRequest: (r) => ctx.io.stderr(logLine(r, json)),
      });
      ctx.print({ url: server.url, port: server.port, turns: script.turns.length }, () =>
        [
          `Loopback provider listening on ${server.url} (${script.turns.length} scripted turns).`,
          `Use it with --provider openai|anthropic|openai-compatible --base-url ${server.url}`,
          'Press Ctrl-C to stop.',
        ].join('\n'),
      );
      const signal = await untilSignal();
      await server.close();
      const summary = {
        event: 'stopped',
        signal,
        requests: server.requests.length,
        unused_turns: server.remaining(),
      };
      ctx.io.stderr(
        json
          ? `${JSON.stringify(summary)}\n`
          : `Stopped (${signal}) after ${summary.requests} requests; ${summary.unused_turns} turns unused.\n`,
      );
    });
}
