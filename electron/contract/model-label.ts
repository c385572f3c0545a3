/** A provider as naming needs it: its id (internal) and the label the user gave or the kind's name. */
export interface NamedProvider {
  id: string;
  label: string;
}

/**
 * How a model is named to the user: "<the provider's label> · <model>" for a stored model id
 * (`<provider id>:<model>`, as traces, runs, evals and replies record it), or a bare model name
 * as is. The provider id is internal (users gave a label, they never typed the id), so it is shown
 * only when no provider carries it any more, and then said to be removed. The one mapping every
 * face uses (app, web mode, CLI, exports), so the same model reads the same everywhere.
 *
 * `providers`: the configured providers first, then the provider kinds (chats pinned before
 * several providers existed name a kind); null while they are not known (then the model alone).
 */
export function modelLabel(
  modelId: string | null | undefined,
  providers: readonly NamedProvider[] | null,
): string | null {
  if (!modelId) return null;
  const colon = modelId.indexOf(':');
  if (colon <= 0) return modelId;
  const provider = modelId.slice(0, colon);
  const model = modelId.slice(colon + 1);
  if (!providers) return model || modelId;
  const label = providers.find((p) => p.id === provider)?.label;
  if (!label) return `${model || modelId} (provider "${provider}", since removed)`;
  return model ? `${label} · ${model}` : label;
}
