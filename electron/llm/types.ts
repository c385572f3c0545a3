import type { AppError } from '../contract/errors.js';
import type { ProviderId } from './providers.js';

/** A tool call the model asked for. The caller runs it and sends back an `LlmToolMessage`. */
export interface LlmToolCall {
  /** The provider's call id, echoed back in the tool result. */
  id: string;
  name: string;
  /** Parsed JSON arguments (the raw string when the model produced invalid JSON: see `invalid`). */
  args: unknown;
  /** Set when the arguments did not parse or the tool is unknown; `error` says why. */
  invalid?: true;
  error?: string;
}

/** An image sent with a user turn (only to models that read images: see `modelReadsImages`). */
export interface LlmImage {
  /** image/png, image/jpeg, image/gif or image/webp. */
  media_type: string;
  /** The file, base64. */
  data: string;
}

/** A user turn. */
export interface LlmUserMessage {
  role: 'user';
  content: string;
  /** Images after the text. */
  images?: LlmImage[];
}

/** An earlier assistant turn, with the tool calls it made. */
export interface LlmAssistantMessage {
  role: 'assistant';
  content: string;
  tool_calls?: Array<Pick<LlmToolCall, 'id' | 'name' | 'args'>>;
}

/** The result of one tool call, answering `tool_call_id`. */
export interface LlmToolMessage {
  role: 'tool';
  tool_call_id: string;
  /** The tool's name (Gemini needs it to pair results with calls). */
  name: string;
  /** A string is sent as text; anything else as JSON. */
  content: unknown;
  /** The tool failed: the content is its error. */
  is_error?: boolean;
}

/** One message of a conversation sent to the model. */
export type LlmMessage = LlmUserMessage | LlmAssistantMessage | LlmToolMessage;

/** A tool the model may call: its parameters are a JSON Schema object. */
export interface LlmToolSpec {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
}

/** One model call. Tool loops are the caller's: the model's tool calls are returned, never run. */
export interface LlmRequest {
  system?: string;
  messages: LlmMessage[];
  tools?: LlmToolSpec[];
  /** Aborting it ends the call with AppError CANCELLED. */
  signal?: AbortSignal;
  /** Ends the call with AppError LLM_TIMEOUT when the whole call takes longer. */
  timeoutMs?: number;
  maxOutputTokens?: number;
  temperature?: number;
}

/** Tokens counted by the provider (0 when it reported none). */
export interface LlmUsage {
  input_tokens: number;
  output_tokens: number;
}

/** Why the model stopped. */
export type LlmFinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other';

/** The outcome of a finished call. */
export interface LlmFinish {
  usage: LlmUsage;
  /** USD from the price table; null when the model's price is unknown. */
  estimated_cost: number | null;
  finish_reason: LlmFinishReason;
  provider: ProviderId;
  model: string;
}

/** A completed, non-streamed call. */
export interface LlmResult extends LlmFinish {
  text: string;
  tool_calls: LlmToolCall[];
}

/** Events of a streamed call: deltas, then exactly one `finish` or one `error`. */
export type LlmEvent =
  | { type: 'text-delta'; text: string }
  | ({ type: 'tool-call' } & LlmToolCall)
  | ({ type: 'finish' } & LlmFinish)
  | { type: 'error'; error: AppError };

/** A configured model, ready to call. */
export interface Llm {
  readonly provider: ProviderId;
  readonly model: string;
  /** Run the call to completion. Rejects with an AppError (LLM_*, CANCELLED). */
  generate(req: LlmRequest): Promise<LlmResult>;
  /** Stream the call. Never throws: failures arrive as a final `error` event. Breaking out aborts the call. */
  stream(req: LlmRequest): AsyncIterable<LlmEvent>;
  /** The same provider, endpoint and key with another model (an LLM skill's own `model`). */
  withModel?(model: string): Llm;
}
