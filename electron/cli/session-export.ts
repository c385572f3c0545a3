import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { EXPORT_FORMATS } from '../contract/chat.js';
import type { CliContext } from './context.js';
import { withClient } from './host.js';

/**
 * `sessions export ID --format md|json [--out FILE]`: a chat as Markdown (the branch shown) or
 * JSON (every branch), through `chat/export-session`. Without `--out` the file goes to stdout.
 */
export function registerSessionExport(sessions: Command, ctx: CliContext): void {
  sessions
    .command('export <id>')
    .description('export a chat as Markdown (the branch shown) or JSON (every branch, with attachments)')
    .addOption(new Option('--format <format>', 'md or json').choices(EXPORT_FORMATS).default('md'))
    .option('--out <file>', 'write to this file instead of stdout')
    .action(async (id: string, o: { format: 'md' | 'json'; out?: string }) => {
      const { writeFileAtomic } = await import('../store/index.js');
      const r = await withClient(ctx, (c) =>
        c.invoke('chat/export-session', { session_id: id, format: o.format }),
      );
      if (o.out === undefined) {
        ctx.io.stdout(r.content);
        return;
      }
      const file = resolve(o.out);
      writeFileAtomic(file, r.content);
      ctx.print({ file, format: o.format, bytes: Buffer.byteLength(r.content) }, () => `Wrote ${file}`);
    });
}
