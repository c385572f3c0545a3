// `skilldesk sidecar status|manifest`: the DSPy sidecar as the CLI sees it.
import type { Command } from 'commander';
import type { CliContext } from './context.js';
import { withClient } from './host.js';

/** `sidecar status` and `sidecar manifest`. */
export function registerSidecarCommands(program: Command, ctx: CliContext): void {
  const sidecar = program.command('sidecar').description('the DSPy sidecar (dspy_module artifacts)');

  sidecar
    .command('status')
    .description('start the sidecar, check it answers, and report its versions (exit 1 when unavailable)')
    .action(async () => {
      const s = await withClient(ctx, (c) => c.invoke('sidecar/status', {}));
      if (s.available) {
        const { version } = s;
        ctx.print(s, () =>
          [
            `sidecar: available (${s.command?.kind}: ${s.command?.command})`,
            `  protocol ${version.protocol}, sidecar ${version.sidecar}, Python ${version.python}, DSPy ${version.dspy}`,
          ].join('\n'),
        );
        return;
      }
      ctx.setExitCode(1);
      ctx.print(s, () =>
        [
          `sidecar: unavailable: ${s.error.message}`,
          '  dspy_module artifacts run their fallback prompt templates.',
        ].join('\n'),
      );
    });

  sidecar
    .command('manifest')
    .description('list the shipped DSPy templates, metrics and optimizers')
    .action(async () => {
      const m = await withClient(ctx, (c) => c.invoke('sidecar/manifest', {}));
      ctx.print(m, () =>
        [
          'templates:',
          ...m.templates.map(
            (t) => `  ${t.id.padEnd(18)} ${t.description}\n  ${''.padEnd(18)} e.g. "${t.example_signature}"`,
          ),
          `field types: ${m.field_types.join(', ')}`,
          `metrics: ${m.metrics.join(', ')}`,
          `optimizers: ${m.optimizers.join(', ')}`,
        ].join('\n'),
      );
    });
}
