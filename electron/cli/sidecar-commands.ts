// `skilldesk sidecar status|manifest`: the DSPy sidecar as the CLI sees it.
import { join } from 'node:path';
import type { Command } from 'commander';
import { AppError, isAppError } from '../contract/errors.js';
import {
  createSidecarClient,
  type LmHandler,
  type SidecarClient,
  type SidecarClientOptions,
} from '../sidecar-client/index.js';
import { resolveHome } from '../store/paths.js';
import type { CliContext } from './context.js';
import { addCommands, setExitCode } from './main.js';

const noLm: LmHandler = async () => {
  throw new AppError('LLM_NOT_CONFIGURED', 'this command makes no model calls');
};

/**
 * A sidecar client for a CLI command: caches under `<home>/sidecar`, the CLI's environment as the
 * allow-list source, stderr diagnostics with SKILLDESK_DEBUG. Dispose it when the command ends.
 * (`run-skill` and `skills optimize` pass an `lm` that calls the provider layer.)
 */
export function createCliSidecarClient(
  ctx: CliContext,
  lm: LmHandler = noLm,
  extra: Partial<SidecarClientOptions> = {},
): SidecarClient {
  return createSidecarClient({
    lm,
    dataDir: join(resolveHome(ctx.globals().home, ctx.env), 'sidecar'),
    env: ctx.env,
    idleTimeoutMs: 0,
    log: (line) => {
      if (ctx.env.SKILLDESK_DEBUG) ctx.io.stderr(`${line}\n`);
    },
    ...extra,
  });
}

function registerSidecarCommands(program: Command, ctx: CliContext): void {
  const sidecar = program.command('sidecar').description('the DSPy sidecar (dspy_module artifacts)');

  sidecar
    .command('status')
    .description('start the sidecar, check it answers, and report its versions (exit 1 when unavailable)')
    .action(async () => {
      const client = createCliSidecarClient(ctx);
      try {
        const version = await client.start();
        await client.ping();
        const s = client.status();
        ctx.print({ available: true, state: s.state, pid: s.pid, command: s.command, version }, () =>
          [
            `sidecar: available (${s.command?.kind}: ${s.command?.command})`,
            `  protocol ${version.protocol}, sidecar ${version.sidecar}, Python ${version.python}, DSPy ${version.dspy}`,
          ].join('\n'),
        );
      } catch (e) {
        if (!isAppError(e, 'SIDECAR_UNAVAILABLE')) throw e;
        const s = client.status();
        setExitCode(1);
        ctx.print({ available: false, command: s.command ?? null, error: e.toData() }, () =>
          [
            `sidecar: unavailable: ${e.message}`,
            '  dspy_module artifacts run their fallback prompt templates.',
          ].join('\n'),
        );
      } finally {
        await client.dispose();
      }
    });

  sidecar
    .command('manifest')
    .description('list the shipped DSPy templates, metrics and optimizers')
    .action(async () => {
      const client = createCliSidecarClient(ctx);
      try {
        const m = await client.manifest();
        ctx.print(m, () =>
          [
            'templates:',
            ...m.templates.map(
              (t) =>
                `  ${t.id.padEnd(18)} ${t.description}\n  ${''.padEnd(18)} e.g. "${t.example_signature}"`,
            ),
            `field types: ${m.field_types.join(', ')}`,
            `metrics: ${m.metrics.join(', ')}`,
            `optimizers: ${m.optimizers.join(', ')}`,
          ].join('\n'),
        );
      } finally {
        await client.dispose();
      }
    });
}

addCommands(registerSidecarCommands);
