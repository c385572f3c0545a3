// `skilldesk providers list|add|remove|test|default`: the providers set up in the account folder's
// settings, as Settings → Providers shows them. Thin faces over the host's `settings/*` channels.
// A key is only ever read from an environment variable (`--key-env`): never a flag's value, which
// would land in the shell's history.
import type { Command } from 'commander';
import { AppError } from '../contract/errors.js';
import type { ConfiguredProviderView, GetSettingsRes } from '../contract/settings.js';
import { PROVIDER_ID_VALUES as PROVIDER_IDS } from '../contract/settings.js';
import type { ProviderId } from '../llm/index.js';
import { type CliContext, EXIT } from './context.js';
import { withClient } from './host.js';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One provider as `--json` prints it. */
function providerJson(p: ConfiguredProviderView) {
  return {
    id: p.id,
    kind: p.kind,
    label: p.label,
    base_url: p.base_url,
    model: p.effective_model,
    is_default: p.is_default,
    has_key: p.has_key,
    key_source: p.source,
    models: p.models,
    models_fetched_at: p.models_fetched_at,
  };
}

function listJson(s: GetSettingsRes) {
  return { default_provider: s.chat?.provider ?? null, providers: s.configured.map(providerJson) };
}

function listText(s: GetSettingsRes): string {
  if (s.configured.length === 0)
    return 'No providers set up. Add one: skilldesk providers add openai-compatible --base-url http://127.0.0.1:11434/v1';
  return s.configured
    .map((p) => {
      const key = p.has_key
        ? `key ${p.source === 'env' ? `from ${p.env_var}` : 'stored'}`
        : p.requires_key
          ? 'no key'
          : 'no key needed';
      const models = p.models ? `${p.models.length} models` : 'models not read';
      return `${p.is_default ? '*' : ' '} ${p.id.padEnd(20)} ${p.label} (${p.kind}) · ${p.effective_model ?? 'no model yet'} · ${p.base_url ?? 'default URL'} · ${key} · ${models}`;
    })
    .join('\n');
}

/** The `providers` command group. */
export function registerProvidersCommands(program: Command, ctx: CliContext): void {
  const providers = program
    .command('providers')
    .description(
      'the LLM providers set up for the app and `skilldesk serve` (several side by side; chats keep the one they were given)',
    );

  providers
    .command('list')
    .description('the providers set up, the default marked with *')
    .action(async () => {
      const s = await withClient(ctx, (c) => c.invoke('settings/get', {}));
      ctx.print(listJson(s), () => listText(s));
    });

  providers
    .command('add')
    .description('set up a provider (or change the one with --id); its key is read from --key-env')
    .argument('<kind>', `provider kind: ${PROVIDER_IDS.join(', ')}`)
    .option(
      '--id <id>',
      'its id (default: the kind, then kind-2, kind-3 …); an existing id changes that provider',
    )
    .option('--label <name>', 'name shown in the model menu')
    .option('--model <id>', "its model for chats following the default (default: the kind's)")
    .option('--base-url <url>', 'API root, e.g. http://127.0.0.1:11434/v1 (required for openai-compatible)')
    .option('--key-env <var>', 'store the key held in this environment variable (never pass a key itself)')
    .option('--default', 'make it the default of new chats')
    .action(
      async (
        kind: string,
        o: {
          id?: string;
          label?: string;
          model?: string;
          baseUrl?: string;
          keyEnv?: string;
          default?: boolean;
        },
      ) => {
        if (!(PROVIDER_IDS as readonly string[]).includes(kind))
          throw new AppError(
            'USAGE',
            `Unknown provider kind "${kind}": use one of ${PROVIDER_IDS.join(', ')}`,
          );
        let key: string | undefined;
        if (o.keyEnv !== undefined) {
          if (!ENV_NAME.test(o.keyEnv))
            throw new AppError('USAGE', `--key-env must be an environment variable name, got "${o.keyEnv}"`);
          key = ctx.env[o.keyEnv]?.trim();
          if (!key) throw new AppError('USAGE', `--key-env: the environment variable ${o.keyEnv} is not set`);
        }
        const r = await withClient(ctx, async (c) => {
          const saved = await c.invoke('settings/save-provider', {
            kind: kind as ProviderId,
            ...(o.id ? { id: o.id } : {}),
            ...(o.label ? { label: o.label } : {}),
            ...(o.model ? { model: o.model } : {}),
            ...(o.baseUrl ? { base_url: o.baseUrl } : {}),
            ...(o.default ? { make_default: true } : {}),
          });
          if (key) await c.invoke('settings/set-key', { provider: saved.id, key });
          return { id: saved.id, settings: await c.invoke('settings/get', {}) };
        });
        const p = r.settings.configured.find((x) => x.id === r.id)!;
        ctx.print(
          providerJson(p),
          () => `Saved ${p.label} as "${p.id}"${p.is_default ? ' (the default)' : ''}.`,
        );
      },
    );

  providers
    .command('remove')
    .description('forget a provider and its stored key (chats pinned to it then ask for another model)')
    .argument('<id>', 'provider id (see `providers list`)')
    .action(async (id: string) => {
      const s = await withClient(ctx, (c) => c.invoke('settings/remove-provider', { id }));
      ctx.print({ removed: id, ...listJson(s) }, () => `Removed "${id}".`);
    });

  providers
    .command('default')
    .description('make a provider (and optionally its model) the default of new chats')
    .argument('<id>', 'provider id')
    .option('--model <id>', 'its model')
    .action(async (id: string, o: { model?: string }) => {
      const s = await withClient(ctx, (c) =>
        c.invoke('settings/set-default', { id, ...(o.model ? { model: o.model } : {}) }),
      );
      ctx.print(listJson(s), () => `New chats use "${id}".`);
    });

  providers
    .command('test')
    .description("read a provider's model list (no completion is spent); exit 1 when it fails")
    .argument('[id]', 'provider id (default: the default provider)')
    .action(async (id: string | undefined) => {
      const r = await withClient(ctx, (c) =>
        c.invoke('settings/test-connection', id ? { provider: id } : {}),
      );
      if (!r.ok) ctx.setExitCode(EXIT.FAILURE);
      ctx.print(r, () =>
        r.ok
          ? `Connected to ${r.label} in ${r.took_ms} ms: ${r.model_count} models listed${r.picked_model ? `; chats use ${r.picked_model}, the first it serves` : r.model_listed ? `, ${r.model} among them` : `, not ${r.model ?? 'any chosen model'}: choose one with skilldesk providers default ${r.provider} --model <id>`}.`
          : `Connection failed: ${r.error?.message ?? 'unknown error'}`,
      );
    });
}
