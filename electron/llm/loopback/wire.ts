import type { ScriptTurn } from './script.js';

/** The two wire formats the loopback server speaks. */
export type WireFormatId = 'openai' | 'anthropic';

/** What the server learns from a request body, for matching and defaults. */
export interface RequestFacts {
  model: string;
  stream: boolean;
  /** OpenAI `stream_options.include_usage`. */
  includeUsage: boolean;
  system: string;
  lastUser: string;
  lastToolResult: string;
  tools: string[];
  /** Rough prompt size, the default `input_tokens`. */
  promptTokens: number;
}

/** Per-reply values shared by both formats. */
export interface ReplyContext {
  facts: RequestFacts;
  /** Deterministic ids: `nextId('call_')` → `call_lb000001`. */
  nextId: (prefix: string) => string;
  created: number;
}

/**
 * One complete SSE event (`…\n\n`). `delta` frames carry content (text or tool-argument
 * fragments); `tail` frames end the reply (finish reason, usage, `[DONE]`, `message_stop`).
 */
export interface SseFrame {
  data: string;
  kind: 'head' | 'delta' | 'tail';
}

/** A provider error body's fields. */
export interface WireError {
  message: string;
  type?: string;
  code?: string;
}

/** One wire format: request checks, reply bodies, SSE frames and error shapes. */
export interface WireFormat {
  id: WireFormatId;
  /** The 400 message for a body the real API would refuse, or undefined. */
  invalid(body: Record<string, unknown>): string | undefined;
  facts(body: Record<string, unknown>): RequestFacts;
  complete(turn: ScriptTurn, ctx: ReplyContext): unknown;
  /** The SSE frames of a streamed reply. */
  frames(turn: ScriptTurn, ctx: ReplyContext): SseFrame[];
  /** The frame of an error sent mid-stream. */
  streamError(err: WireError): string;
  errorBody(status: number, err: Partial<WireError> | undefined, requestId: string): unknown;
  /** The response header carrying the request id. */
  requestIdHeader: string;
}

// ---------------------------------------------------------------------------------------------
// Shared helpers

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Text of a string or of an array of `{type:'text', text}` parts/blocks (tool_result blocks included). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => {
      if (!isObj(p)) return '';
      if (p.type === 'text') return str(p.text);
      if (p.type === 'tool_result') return textOf(p.content);
      return '';
    })
    .filter(Boolean)
    .join('\n');
}

/** The reply text and its streamed chunks (default: one chunk per word, spaces kept). */
export function textChunks(turn: ScriptTurn): string[] {
  if (turn.text === undefined) return [];
  if (Array.isArray(turn.text)) return turn.text;
  return turn.text.match(/\S+\s*|\s+/g) ?? [];
}

/** A tool call's full argument string and its streamed fragments. */
export function argumentChunks(call: NonNullable<ScriptTurn['tool_calls']>[number]): {
  full: string;
  chunks: string[];
} {
  if (call.argument_chunks) return { full: call.argument_chunks.join(''), chunks: call.argument_chunks };
  const full = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
  const chunks: string[] = [];
  for (let i = 0; i < full.length; i += 16) chunks.push(full.slice(i, i + 16));
  return { full, chunks };
}

function outputTokens(turn: ScriptTurn): number {
  if (turn.usage?.output_tokens !== undefined) return turn.usage.output_tokens;
  const chars =
    textChunks(turn).join('').length +
    (turn.tool_calls ?? []).reduce((n, c) => n + argumentChunks(c).full.length, 0);
  return Math.max(1, Math.ceil(chars / 4));
}

function inputTokens(turn: ScriptTurn, facts: RequestFacts): number {
  return turn.usage?.input_tokens ?? facts.promptTokens;
}

function neutralFinish(turn: ScriptTurn): 'stop' | 'length' | 'tool_calls' | 'content_filter' {
  return turn.finish_reason ?? (turn.tool_calls?.length ? 'tool_calls' : 'stop');
}

const estimateTokens = (v: unknown): number => Math.max(1, Math.ceil(JSON.stringify(v ?? '').length / 4));

// ---------------------------------------------------------------------------------------------
// OpenAI chat completions

const OPENAI_ERROR_DEFAULTS: Record<number, WireError> = {
  400: { message: 'Invalid request.', type: 'invalid_request_error' },
  401: {
    message:
      'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.',
    type: 'invalid_request_error',
    code: 'invalid_api_key',
  },
  403: { message: 'You are not allowed to sample from this model.', type: 'invalid_request_error' },
  404: {
    message: 'The model does not exist or you do not have access to it.',
    type: 'invalid_request_error',
    code: 'model_not_found',
  },
  429: {
    message: 'Rate limit reached for requests. Please try again later.',
    type: 'requests',
    code: 'rate_limit_exceeded',
  },
  500: {
    message: 'The server had an error while processing your request. Sorry about that!',
    type: 'server_error',
  },
  503: { message: 'The engine is currently overloaded, please try again later.', type: 'server_error' },
};

/** OpenAI `POST /v1/chat/completions`. */
export const openaiWire: WireFormat = {
  id: 'openai',
  requestIdHeader: 'x-request-id',

  invalid(body) {
    if (typeof body.model !== 'string' || !body.model) return 'you must provide a model parameter';
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      return "Invalid 'messages': expected a non-empty array of messages.";
    }
    return undefined;
  },

  facts(body) {
    const messages = (body.messages as unknown[]).filter(isObj);
    const system = messages
      .filter((m) => m.role === 'system' || m.role === 'developer')
      .map((m) => textOf(m.content))
      .join('\n');
    const lastUser = [...messages].reverse().find((m) => m.role === 'user');
    const lastTool = [...messages].reverse().find((m) => m.role === 'tool');
    const tools = Array.isArray(body.tools)
      ? body.tools.filter(isObj).map((t) => (isObj(t.function) ? str(t.function.name) : ''))
      : [];
    return {
      model: str(body.model),
      stream: body.stream === true,
      includeUsage: isObj(body.stream_options) && body.stream_options.include_usage === true,
      system,
      lastUser: lastUser ? textOf(lastUser.content) : '',
      lastToolResult: lastTool ? textOf(lastTool.content) : '',
      tools,
      promptTokens: estimateTokens([body.messages, body.tools]),
    };
  },

  complete(turn, ctx) {
    const text = textChunks(turn).join('');
    const calls = (turn.tool_calls ?? []).map((c) => ({
      id: c.id ?? ctx.nextId('call_'),
      type: 'function',
      function: { name: c.name, arguments: argumentChunks(c).full },
    }));
    return {
      id: ctx.nextId('chatcmpl-'),
      object: 'chat.completion',
      created: ctx.created,
      model: ctx.facts.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: text || (calls.length ? null : ''),
            refusal: null,
            annotations: [],
            ...(calls.length ? { tool_calls: calls } : {}),
          },
          logprobs: null,
          finish_reason: neutralFinish(turn),
        },
      ],
      usage: openaiUsage(turn, ctx.facts),
      service_tier: 'default',
      system_fingerprint: 'fp_loopback',
    };
  },

  frames(turn, ctx) {
    const id = ctx.nextId('chatcmpl-');
    const head = { id, object: 'chat.completion.chunk', created: ctx.created, model: ctx.facts.model };
    const tail = { service_tier: 'default', system_fingerprint: 'fp_loopback' };
    const withUsage = ctx.facts.includeUsage ? { usage: null } : {};
    const chunk = (delta: Json, finish: string | null = null) =>
      sse({
        ...head,
        ...tail,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        ...withUsage,
      });
    const out: SseFrame[] = [];
    const frame = (delta: Json, kind: SseFrame['kind'] = 'delta') => out.push({ data: chunk(delta), kind });

    const text = textChunks(turn);
    const calls = turn.tool_calls ?? [];
    let role: Json | undefined = { role: 'assistant', content: text.length ? '' : null, refusal: null };
    if (text.length || !calls.length) {
      frame(role, 'head');
      role = undefined;
    }
    for (const piece of text) frame({ content: piece });
    calls.forEach((c, index) => {
      const { full, chunks } = argumentChunks(c);
      const whole = turn.whole_tool_calls === true;
      const start = {
        index,
        id: c.id ?? ctx.nextId('call_'),
        type: 'function',
        function: { name: c.name, arguments: whole ? full : '' },
      };
      // Like the real API, a reply that starts with a tool call carries the role in the same chunk.
      frame({ ...role, tool_calls: [start] }, whole ? 'delta' : 'head');
      role = undefined;
      if (whole) return;
      for (const arg of chunks) frame({ tool_calls: [{ index, function: { arguments: arg } }] });
    });
    out.push({ data: chunk({}, neutralFinish(turn)), kind: 'tail' });
    if (ctx.facts.includeUsage) {
      out.push({
        data: sse({ ...head, ...tail, choices: [], usage: openaiUsage(turn, ctx.facts) }),
        kind: 'tail',
      });
    }
    out.push({ data: 'data: [DONE]\n\n', kind: 'tail' });
    return out;
  },
  streamError(err) {
    return sse({
      error: { message: err.message, type: err.type ?? 'server_error', param: null, code: err.code ?? null },
    });
  },

  errorBody(status, err) {
    const d =
      OPENAI_ERROR_DEFAULTS[status] ??
      (status >= 500 ? OPENAI_ERROR_DEFAULTS[500]! : OPENAI_ERROR_DEFAULTS[400]!);
    return {
      error: {
        message: err?.message ?? d.message,
        type: err?.type ?? d.type,
        param: null,
        code: err?.code ?? d.code ?? null,
      },
    };
  },
};

function openaiUsage(turn: ScriptTurn, facts: RequestFacts) {
  const prompt = inputTokens(turn, facts);
  const completion = outputTokens(turn);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function sse(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages

const ANTHROPIC_STOP = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
};

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

const ANTHROPIC_ERROR_MESSAGES: Record<string, string> = {
  invalid_request_error: 'Invalid request.',
  authentication_error: 'invalid x-api-key',
  permission_error: 'Your API key does not have permission to use the specified resource.',
  not_found_error: 'The requested resource could not be found.',
  rate_limit_error: 'Number of request tokens has exceeded your per-minute rate limit.',
  api_error: 'Internal server error',
  overloaded_error: 'Overloaded',
};

/** Anthropic `POST /v1/messages`. */
export const anthropicWire: WireFormat = {
  id: 'anthropic',
  requestIdHeader: 'request-id',

  invalid(body) {
    if (typeof body.model !== 'string' || !body.model) return 'model: Field required';
    if (typeof body.max_tokens !== 'number') return 'max_tokens: Field required';
    if (!Array.isArray(body.messages)) return 'messages: Field required';
    return undefined;
  },

  facts(body) {
    const messages = (body.messages as unknown[]).filter(isObj);
    const lastUser = [...messages].reverse().find((m) => m.role === 'user');
    let lastToolResult = '';
    for (const m of [...messages].reverse()) {
      const block = Array.isArray(m.content)
        ? [...m.content].reverse().find((b) => isObj(b) && b.type === 'tool_result')
        : undefined;
      if (block) {
        lastToolResult = textOf([block]);
        break;
      }
    }
    return {
      model: str(body.model),
      stream: body.stream === true,
      includeUsage: true,
      system: textOf(body.system),
      lastUser: lastUser ? textOf(lastUser.content) : '',
      lastToolResult,
      tools: Array.isArray(body.tools) ? body.tools.filter(isObj).map((t) => str(t.name)) : [],
      promptTokens: estimateTokens([body.system, body.messages, body.tools]),
    };
  },

  complete(turn, ctx) {
    const text = textChunks(turn).join('');
    const content: Json[] = [];
    if (text) content.push({ type: 'text', text });
    for (const c of turn.tool_calls ?? []) {
      content.push({ type: 'tool_use', id: c.id ?? ctx.nextId('toolu_'), name: c.name, input: parseArgs(c) });
    }
    return {
      id: ctx.nextId('msg_'),
      type: 'message',
      role: 'assistant',
      model: ctx.facts.model,
      content,
      stop_reason: ANTHROPIC_STOP[neutralFinish(turn)],
      stop_sequence: null,
      usage: anthropicUsage(inputTokens(turn, ctx.facts), outputTokens(turn)),
    };
  },

  frames(turn, ctx) {
    const out: SseFrame[] = [];
    const ev = (type: string, data: Json, kind: SseFrame['kind'] = 'head') =>
      out.push({ data: sse({ type, ...data }, type), kind });
    ev('message_start', {
      message: {
        id: ctx.nextId('msg_'),
        type: 'message',
        role: 'assistant',
        model: ctx.facts.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: anthropicUsage(inputTokens(turn, ctx.facts), 1),
      },
    });
    ev('ping', {});
    let index = 0;
    const text = textChunks(turn);
    if (text.length) {
      ev('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const piece of text) {
        ev('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }, 'delta');
      }
      ev('content_block_stop', { index });
      index++;
    }
    for (const c of turn.tool_calls ?? []) {
      const id = c.id ?? ctx.nextId('toolu_');
      ev('content_block_start', { index, content_block: { type: 'tool_use', id, name: c.name, input: {} } });
      for (const part of ['', ...argumentChunks(c).chunks]) {
        ev(
          'content_block_delta',
          { index, delta: { type: 'input_json_delta', partial_json: part } },
          'delta',
        );
      }
      ev('content_block_stop', { index });
      index++;
    }
    ev(
      'message_delta',
      {
        delta: { stop_reason: ANTHROPIC_STOP[neutralFinish(turn)], stop_sequence: null },
        usage: { output_tokens: outputTokens(turn) },
      },
      'tail',
    );
    ev('message_stop', {}, 'tail');
    return out;
  },

  streamError(err) {
    return sse(
      { type: 'error', error: { type: err.type ?? 'overloaded_error', message: err.message } },
      'error',
    );
  },

  errorBody(status, err, requestId) {
    const type =
      err?.type ?? ANTHROPIC_ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
    const message = err?.message ?? ANTHROPIC_ERROR_MESSAGES[type] ?? 'Error';
    return { type: 'error', error: { type, message }, request_id: requestId };
  },
};

function anthropicUsage(input: number, output: number) {
  return {
    input_tokens: input,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: output,
  };
}

function parseArgs(call: NonNullable<ScriptTurn['tool_calls']>[number]): unknown {
  if (typeof call.arguments !== 'string' && !call.argument_chunks) return call.arguments;
  try {
    return JSON.parse(argumentChunks(call).full);
  } catch {
    // The Messages API always returns an object; a deliberately broken script gets an empty one.
    return {};
  }
}
