/**
 * MCP sampling as a model: when the client of `skilldesk mcp serve` offers `sampling`
 * and no provider is configured, a served skill's model calls go back to that client
 * (`sampling/createMessage`), so Claude Desktop or an IDE answers them with its own model.
 * Tools are not offered through sampling: a served skill's prompt templates need text only.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AppError } from '../contract/errors.js';
import { ANY_ENDPOINT_PROVIDER } from '../contract/providers.js';
import type { Llm, LlmEvent, LlmMessage, LlmRequest, LlmResult } from '../llm/index.js';

function textOf(m: LlmMessage): string {
  if (m.role === 'tool')
    return `[tool ${m.name} result] ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`;
  return m.content;
}

/** True when the connected client offers sampling. */
export function clientOffersSampling(server: Server): boolean {
  return Boolean(server.getClientCapabilities()?.sampling);
}

/** A model whose calls are the MCP client's `sampling/createMessage`. */
export function samplingLlm(server: Server): Llm {
  const generate = async (req: LlmRequest): Promise<LlmResult> => {
    // An LLM skill's model must be able to call its tools; answering without them would look like
    // a run while skipping its work, so it fails saying how to give the server a model of its own.
    if (req.tools && req.tools.length > 0)
      throw new AppError(
        'LLM_NOT_CONFIGURED',
        "this skill's model calls tools, which the MCP client's sampling does not carry: start `skilldesk mcp serve --provider NAME --model MODEL` (with that provider's key set up), or give the skill a provider of its own",
      );
    // Sampling alternates user and assistant turns; tool results travel as user text.
    const messages = req.messages.map((m) => ({
      role: m.role === 'assistant' ? ('assistant' as const) : ('user' as const),
      content: { type: 'text' as const, text: textOf(m) },
    }));
    let r: Awaited<ReturnType<Server['createMessage']>>;
    try {
      r = await server.createMessage(
        {
          messages,
          ...(req.system ? { systemPrompt: req.system } : {}),
          maxTokens: req.maxOutputTokens ?? 2048,
          ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
          includeContext: 'none',
        },
        { signal: req.signal, timeout: req.timeoutMs ?? 120_000 },
      );
    } catch (e) {
      if (req.signal?.aborted) throw new AppError('CANCELLED', 'the model call was cancelled');
      throw new AppError('LLM_FAILED', `the MCP client's sampling failed: ${(e as Error).message}`);
    }
    const content = Array.isArray(r.content) ? r.content : [r.content];
    const text = content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    return {
      text,
      tool_calls: [],
      usage: { input_tokens: 0, output_tokens: 0 },
      estimated_cost: null,
      finish_reason: r.stopReason === 'maxTokens' ? 'length' : 'stop',
      provider: ANY_ENDPOINT_PROVIDER,
      model: `mcp-sampling:${r.model}`,
    };
  };
  return {
    provider: ANY_ENDPOINT_PROVIDER,
    model: 'mcp-sampling',
    generate,
    async *stream(req: LlmRequest): AsyncIterable<LlmEvent> {
      try {
        const r = await generate(req);
        if (r.text) yield { type: 'text-delta', text: r.text };
        const { text: _t, tool_calls: _c, ...finish } = r;
        yield { type: 'finish', ...finish };
      } catch (e) {
        yield {
          type: 'error',
          error: e instanceof AppError ? e : new AppError('LLM_FAILED', (e as Error).message),
        };
      }
    },
  };
}
