import type {
  CallWarning,
  generateText,
  JSONValue,
  LanguageModelUsage,
  ModelMessage,
  streamText,
  ToolResultPart,
  ToolSet,
} from 'ai';
import { AppError, assertNever, isAppError } from '../contract/errors.js';
import { BUILTIN_PRICES, estimateCost, type PriceTable } from './prices.js';
import {
  type KeySource,
  type LlmConfig,
  PROVIDERS,
  parseLlmConfig,
  type ResolvedLlmConfig,
  resolveApiKey,
  resolveLlmConfig,
} from './providers.js';
import type { FetchLike } from './sdk-model.js';
import type {
  Llm,
  LlmEvent,
  LlmFinish,
  LlmFinishReason,
  LlmMessage,
  LlmRequest,
  LlmResult,
  LlmToolCall,
  LlmToolSpec,
  LlmUsage,
} from './types.js';

/** What {@link createLlm} needs from its host. */
export interface LlmDeps {
  /** Where keys come from: the keychain on the desktop, the environment in the CLI. */
  keys: KeySource;
  /** Prices for `estimated_cost` (default: the built-in table). */
  prices?: PriceTable;
  /** Custom fetch for the SDK clients (proxies, tests). */
  fetch?: FetchLike;
  /** Receives the SDK's warnings (unsupported settings …), which are otherwise dropped. */
  onWarning?: (message: string) => void;
}

/** The AI SDK and the providers' adapters, loaded on a process's first model call. */
type Sdk = typeof import('ai') & { createSdkModel: typeof import('./sdk-model.js').createSdkModel };
let sdk: Sdk | null = null;
let loading: Promise<Sdk> | null = null;

/**
 * Load the AI SDK once. It is 2 MB of JavaScript (with OpenTelemetry and every provider's adapter)
 * that a command which never calls a model — `skills match`, `--help`, `mcp serve` — should not
 * parse at start.
 */
function loadSdk(): Promise<Sdk> {
  loading ??= Promise.all([import('ai'), import('./sdk-model.js')]).then(([ai, m]) => {
    sdk = { ...ai, createSdkModel: m.createSdkModel };
    return sdk;
  });
  return loading;
}

/**
 * Create a client for one provider and model. The config is validated now (AppError
 * INVALID_INPUT); the key is looked up at each call, so a missing key fails the call with
 * LLM_MISSING_KEY, not the app's start-up. Calls never retry on their own.
 */
export function createLlm(config: LlmConfig, deps: LlmDeps): Llm {
  const resolved = resolveLlmConfig(parseLlmConfig(config));
  // The SDK's default warning logger writes to stdout (console.info), which would corrupt the
  // CLI's --json output; warnings go to deps.onWarning instead. A host's own logger is kept.
  if (globalThis.AI_SDK_LOG_WARNINGS === undefined) globalThis.AI_SDK_LOG_WARNINGS = false;
  const warn = (warnings: readonly CallWarning[] | undefined) => {
    for (const w of warnings ?? []) deps.onWarning?.(formatWarning(w, resolved));
  };
  const prices = deps.prices ?? BUILTIN_PRICES;
  const finishOf = (usage: LanguageModelUsage | undefined, reason: LlmFinishReason): LlmFinish => {
    const u = toUsage(usage);
    return {
      usage: u,
      estimated_cost: estimateCost(resolved.provider, resolved.model, u, prices),
      finish_reason: reason,
      provider: resolved.provider,
      model: resolved.model,
    };
  };

  return {
    provider: resolved.provider,
    model: resolved.model,
    withModel: (model) => createLlm({ ...config, model }, deps),

    async generate(req) {
      const ai = await loadSdkFor(resolved);
      const call = prepareCall(ai, resolved, deps, req);
      try {
        const r = await ai.generateText(call.options);
        call.checkAborted();
        warn(r.warnings);
        const result: LlmResult = {
          text: r.text,
          tool_calls: r.toolCalls.map(toToolCall),
          ...finishOf(r.totalUsage, r.finishReason),
        };
        return result;
      } catch (e) {
        throw call.toError(e);
      } finally {
        call.dispose();
      }
    },

    async *stream(req): AsyncGenerator<LlmEvent> {
      let call: PreparedCall;
      let ai: Sdk;
      try {
        ai = await loadSdkFor(resolved);
        call = prepareCall(ai, resolved, deps, req);
      } catch (e) {
        yield { type: 'error', error: toAppError(e, resolved) };
        return;
      }
      try {
        // onError: errors arrive as stream parts below; the default handler would log them.
        const result = ai.streamText({ ...call.options, onError: () => {} });
        let finish: LlmFinish | undefined;
        for await (const part of result.fullStream) {
          if (part.type === 'text-delta') {
            if (part.text) yield { type: 'text-delta', text: part.text };
          } else if (part.type === 'tool-call') {
            yield { type: 'tool-call', ...toToolCall(part) };
          } else if (part.type === 'error') {
            throw part.error;
          } else if (part.type === 'abort') {
            throw new DOMException('The call was aborted', 'AbortError');
          } else if (part.type === 'start-step') {
            warn(part.warnings);
          } else if (part.type === 'finish') {
            finish = finishOf(part.totalUsage, part.finishReason);
          }
        }
        call.checkAborted();
        if (!finish) throw new AppError('LLM_FAILED', 'The model stream ended without finishing');
        call.done = true;
        yield { type: 'finish', ...finish };
      } catch (e) {
        yield { type: 'error', error: call.toError(e) };
      } finally {
        call.dispose();
      }
    },
  };
}

interface PreparedCall {
  options: Parameters<typeof generateText>[0] & Parameters<typeof streamText>[0];
  /** Map any failure of this call to an AppError (timeout and cancel take precedence). */
  toError(e: unknown): AppError;
  /** Throw if the call was cancelled or timed out (the SDK may end quietly on abort). */
  checkAborted(): void;
  /** Set once the call ended normally, so dispose() does not abort it. */
  done: boolean;
  dispose(): void;
}

/** The SDK, or an AppError naming the provider when it cannot be loaded (a broken install). */
async function loadSdkFor(config: ResolvedLlmConfig): Promise<Sdk> {
  try {
    return await loadSdk();
  } catch (e) {
    loading = null;
    throw new AppError(
      'LLM_FAILED',
      `The AI SDK could not be loaded for ${PROVIDERS[config.provider].label}: ${(e as Error).message}. Reinstall SkillDesk's packages (npm install).`,
      { provider: config.provider, model: config.model },
    );
  }
}

function prepareCall(ai: Sdk, config: ResolvedLlmConfig, deps: LlmDeps, req: LlmRequest): PreparedCall {
  if (req.signal?.aborted) throw cancelled(config);
  const apiKey = resolveApiKey(config, deps.keys);
  const model = ai.createSdkModel(config, apiKey, deps.fetch);

  // One controller for the user's signal and our timeout, so we can tell which one fired.
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(req.signal?.reason);
  req.signal?.addEventListener('abort', onAbort, { once: true });
  const timer =
    req.timeoutMs !== undefined
      ? setTimeout(() => {
          timedOut = true;
          controller.abort(new DOMException('The call timed out', 'TimeoutError'));
        }, req.timeoutMs)
      : undefined;

  const call: PreparedCall = {
    options: {
      model,
      system: req.system,
      messages: toModelMessages(req.messages),
      tools: req.tools?.length ? toToolSet(ai, req.tools) : undefined,
      maxOutputTokens: req.maxOutputTokens,
      temperature: req.temperature,
      maxRetries: 0,
      abortSignal: controller.signal,
    },
    done: false,
    toError(e) {
      if (timedOut) {
        return new AppError('LLM_TIMEOUT', `${label(config)} did not answer within ${req.timeoutMs} ms`, {
          provider: config.provider,
          model: config.model,
          timeoutMs: req.timeoutMs,
        });
      }
      if (req.signal?.aborted) return cancelled(config);
      return toAppError(e, config);
    },
    checkAborted() {
      if (controller.signal.aborted) throw call.toError(controller.signal.reason);
    },
    dispose() {
      if (timer) clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      // A consumer that stops iterating early must not leave the HTTP request running.
      if (!call.done && !controller.signal.aborted)
        controller.abort(new DOMException('Stream closed', 'AbortError'));
    },
  };
  return call;
}

const label = (config: ResolvedLlmConfig) => PROVIDERS[config.provider].label;

function formatWarning(w: CallWarning, config: ResolvedLlmConfig): string {
  const text = w.type === 'other' ? w.message : `${w.type} ${w.feature}${w.details ? `: ${w.details}` : ''}`;
  return `${label(config)} (${config.model}): ${text}`;
}

function cancelled(config: ResolvedLlmConfig): AppError {
  return new AppError('CANCELLED', 'The model call was cancelled', {
    provider: config.provider,
    model: config.model,
  });
}

/**
 * Map a provider or SDK failure to an AppError: HTTP 429 (or a provider's rate-limit error) →
 * LLM_RATE_LIMITED, an abort → CANCELLED, anything else → LLM_FAILED with the provider's message.
 */
export function toAppError(e: unknown, config: Pick<ResolvedLlmConfig, 'provider' | 'model'>): AppError {
  if (isAppError(e)) return e;
  const base = { provider: config.provider, model: config.model };
  const name = PROVIDERS[config.provider].label;
  let err = e;
  // Before the SDK is loaded no error can be one of its own.
  if (sdk?.RetryError.isInstance(err)) err = err.lastError;
  if (isAbortError(err)) return new AppError('CANCELLED', 'The model call was cancelled', base);
  if (sdk?.APICallError.isInstance(err)) {
    const status = err.statusCode;
    const message = providerMessage(err.responseBody) ?? err.message;
    if (status === 429) {
      const retryAfter = err.responseHeaders?.['retry-after'];
      return new AppError('LLM_RATE_LIMITED', `${name} rate limit: ${message}`, {
        ...base,
        status,
        ...(retryAfter ? { retryAfter } : {}),
      });
    }
    const where = status === undefined ? '' : ` (HTTP ${status})`;
    return new AppError('LLM_FAILED', `${name} error${where}: ${message}`, { ...base, status });
  }
  // Errors sent inside an SSE stream reach us as the provider's plain error object.
  if (isRecord(err)) {
    const type =
      typeof err.type === 'string' ? err.type : typeof err.code === 'string' ? err.code : undefined;
    const message = typeof err.message === 'string' ? err.message : JSON.stringify(err);
    if (type === 'rate_limit_error' || type === 'rate_limit_exceeded') {
      return new AppError('LLM_RATE_LIMITED', `${name} rate limit: ${message}`, { ...base, type });
    }
    return new AppError('LLM_FAILED', `${name} error: ${message}`, { ...base, ...(type ? { type } : {}) });
  }
  return new AppError('LLM_FAILED', `${name} call failed: ${String(e)}`, base);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isAbortError(e: unknown): boolean {
  return (
    (e instanceof Error || e instanceof DOMException) &&
    (e.name === 'AbortError' || e.name === 'TimeoutError')
  );
}

/** The `error.message` of an OpenAI- or Anthropic-shaped error body, when there is one. */
function providerMessage(body: string | undefined): string | undefined {
  if (!body) return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    if (isRecord(parsed) && isRecord(parsed.error) && typeof parsed.error.message === 'string') {
      return parsed.error.message;
    }
  } catch {
    // Not JSON: the SDK's message is the best we have.
  }
  return undefined;
}

function toUsage(u: LanguageModelUsage | undefined): LlmUsage {
  return { input_tokens: u?.inputTokens ?? 0, output_tokens: u?.outputTokens ?? 0 };
}

function toToolCall(c: {
  toolCallId: string;
  toolName: string;
  input: unknown;
  invalid?: boolean;
  error?: unknown;
}): LlmToolCall {
  const call: LlmToolCall = { id: c.toolCallId, name: c.toolName, args: c.input };
  if (c.invalid) {
    call.invalid = true;
    call.error = c.error instanceof Error ? c.error.message : String(c.error);
  }
  return call;
}

function toToolSet(ai: Sdk, tools: LlmToolSpec[]): ToolSet {
  const set: ToolSet = {};
  for (const t of tools) {
    // No `execute`: the SDK returns the calls and the caller runs its own tool loop.
    set[t.name] = ai.tool({ description: t.description, inputSchema: ai.jsonSchema(t.parameters) });
  }
  return set;
}

/** Convert our messages to the SDK's; consecutive tool results travel in one tool message. */
export function toModelMessages(messages: LlmMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const m of messages) {
    switch (m.role) {
      case 'user':
        out.push(
          m.images?.length
            ? {
                role: 'user',
                content: [
                  { type: 'text', text: m.content },
                  ...m.images.map((i) => ({
                    type: 'image' as const,
                    image: i.data,
                    mediaType: i.media_type,
                  })),
                ],
              }
            : { role: 'user', content: m.content },
        );
        break;
      case 'assistant': {
        if (!m.tool_calls?.length) {
          out.push({ role: 'assistant', content: m.content });
          break;
        }
        out.push({
          role: 'assistant',
          content: [
            ...(m.content ? [{ type: 'text' as const, text: m.content }] : []),
            ...m.tool_calls.map((c) => ({
              type: 'tool-call' as const,
              toolCallId: c.id,
              toolName: c.name,
              input: c.args,
            })),
          ],
        });
        break;
      }
      case 'tool': {
        const part: ToolResultPart = {
          type: 'tool-result',
          toolCallId: m.tool_call_id,
          toolName: m.name,
          output:
            typeof m.content === 'string'
              ? { type: m.is_error ? 'error-text' : 'text', value: m.content }
              : { type: m.is_error ? 'error-json' : 'json', value: (m.content ?? null) as JSONValue },
        };
        const prev = out.at(-1);
        if (prev?.role === 'tool') prev.content.push(part);
        else out.push({ role: 'tool', content: [part] });
        break;
      }
      default:
        assertNever(m);
    }
  }
  return out;
}
