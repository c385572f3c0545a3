// `skilldesk settings listing-budget [PERCENT]`: the app's settings that are not a provider, as
// Settings shows them. Thin faces over the host's `settings/*` channels.
import type { Command } from 'commander';
import { AppError } from '../contract/errors.js';
import type { ListingBudgetView } from '../contract/settings.js';
import type { CliContext } from './context.js';
import { withClient } from './host.js';

function listingText(l: ListingBudgetView): string {
  const ctx = `${l.context_tokens.toLocaleString('en-US')} tokens${l.context_known ? '' : ' (assumed: the model is not known)'}`;
  return `Skill listing budget: ${l.percent}% of ${l.model ?? 'the default model (none chosen yet)'}'s context of ${ctx} = ${l.budget_tokens.toLocaleString('en-US')} tokens. Every enabled skill is listed when all fit; above it, phase 1 chooses.`;
}

/** The `settings` command group. */
export function registerSettingsCommands(program: Command, ctx: CliContext): void {
  const settings = program
    .command('settings')
    .description("the app's settings beyond providers (settings.json)");
  settings
    .command('listing-budget')
    .description(
      "show or set the skill listing's budget: the share of the default model's context that the whole skill listing may take (default 1%)",
    )
    .argument('[percent]', 'a number from 0 to 10 (0: phase 1 always chooses what is listed)')
    .action(async (percent?: string) => {
      let value: number | undefined;
      if (percent !== undefined) {
        value = Number(percent);
        if (percent.trim() === '' || !Number.isFinite(value) || value < 0 || value > 10)
          throw new AppError('USAGE', `percent must be a number from 0 to 10, not "${percent}"`);
      }
      const s = await withClient(ctx, (c) =>
        value === undefined
          ? c.invoke('settings/get', {})
          : c.invoke('settings/set-listing-budget', { percent: value }),
      );
      ctx.print({ listing: s.listing }, () => listingText(s.listing));
    });
}
