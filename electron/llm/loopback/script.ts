import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { AppError } from '../../contract/errors.js';

const TextChunks = z.union([z.string(), z.array(z.string()).min(1)]);

/** One tool call the scripted model makes. */
export const ScriptToolCallSchema = z.strictObject({
  /** Call id (default: generated, `call_…` for OpenAI, `toolu_…` for Anthropic). */
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  /** Arguments: an object (serialised) or a raw JSON string (may be deliberately invalid). */
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).default({}),
  /** Explicit streamed fragments of the arguments string (default: 16-character slices). */
  argument_chunks: z.array(z.string()).min(1).optional(),
});

/** What a request must look like for a turn to answer it; a mismatch gets a 400. */
export const ScriptExpectSchema = z.strictObject({
  /** Wire format of the request. */
  format: z.enum(['openai', 'anthropic']).optional(),
  /** Substring of the last user message's text (for Anthropic, including tool_result contents). */
  last_user_contains: z.string().optional(),
  /** Substring of the system prompt (OpenAI system/developer messages, Anthropic `system`). */
  system_contains: z.string().optional(),
  /** Substring of the most recent tool result. */
  tool_result_contains: z.string().optional(),
  /** Tool names the request must offer. */
  tools: z.array(z.string()).optional(),
  /** Exact model id. */
  model: z.string().optional(),
  /** Whether the request asks for streaming. */
  stream: z.boolean().optional(),
});

/** One scripted reply. */
export const ScriptTurnSchema = z
  .strictObject({
    /** Reply text; an array gives the streamed chunks exactly (default: one chunk per word). */
    text: TextChunks.optional(),
    tool_calls: z.array(ScriptToolCallSchema).optional(),
    usage: z
      .strictObject({
        input_tokens: z.number().int().nonnegative().optional(),
        output_tokens: z.number().int().nonnegative().optional(),
      })
      .optional(),
    /** Neutral finish reason, mapped per wire format (default: tool_calls when calls were made). */
    finish_reason: z.enum(['stop', 'length', 'tool_calls', 'content_filter']).optional(),
    /** Reply with this HTTP error status and the provider's error JSON shape. */
    status: z.number().int().min(400).max(599).optional(),
    /** Error body fields (defaults follow the status and the wire format). */
    error: z
      .strictObject({
        message: z.string().optional(),
        type: z.string().optional(),
        code: z.string().optional(),
      })
      .optional(),
    /** Extra response headers (e.g. `retry-after`). */
    headers: z.record(z.string(), z.string()).optional(),
    /** Wait this long before answering. */
    delay_ms: z.number().int().nonnegative().max(600_000).optional(),
    /** Wait this long between streamed events. */
    chunk_delay_ms: z.number().int().nonnegative().max(60_000).optional(),
    /** Never answer; hold the connection until the client gives up (timeout tests). */
    hang: z.boolean().optional(),
    /** Streamed replies: send this many content deltas (text or argument fragments), then stall until the client gives up (cancel tests). */
    hang_after: z.number().int().nonnegative().optional(),
    /** OpenAI format: stream each tool call whole in one chunk (as xAI does) instead of in fragments. */
    whole_tool_calls: z.boolean().optional(),
    /** A provider error sent inside the stream after the events above, instead of finishing. */
    stream_error: z.strictObject({ message: z.string(), type: z.string().optional() }).optional(),
    expect: ScriptExpectSchema.optional(),
  })
  .superRefine((t, ctx) => {
    if (t.error && t.status === undefined) {
      ctx.addIssue({ code: 'custom', path: ['status'], message: 'an error turn needs an HTTP status' });
    }
  });

const ScriptTurnsSchema = z.array(ScriptTurnSchema);

const ScriptObjectSchema = z.strictObject({
  turns: ScriptTurnsSchema,
  /** Model ids listed by `GET /v1/models`. */
  models: z.array(z.string().min(1)).optional(),
  /** When set, requests must carry this key (Bearer or x-api-key) or get a 401. */
  api_key: z.string().min(1).optional(),
  /** Answer a completion for a model not in `models` with a 404, as Ollama does. */
  strict_models: z.boolean().optional(),
});

/** A whole script: the turns in order, or `{turns, models?, api_key?}` with server-wide settings. */
export const LoopbackScriptSchema = z.union([ScriptTurnsSchema, ScriptObjectSchema]);

/** A scripted tool call after validation. */
export type ScriptToolCall = z.infer<typeof ScriptToolCallSchema>;
/** A scripted reply after validation. */
export type ScriptTurn = z.infer<typeof ScriptTurnSchema>;
/** Request matcher of a turn. */
export type ScriptExpect = z.infer<typeof ScriptExpectSchema>;
/** A script as written (array or object form). */
export type LoopbackScriptInput = z.input<typeof LoopbackScriptSchema>;

/** A script in its normal form. */
export interface LoopbackScript {
  turns: ScriptTurn[];
  models: string[];
  apiKey?: string;
  /** Completions for a model not in `models` get a 404. */
  strictModels?: boolean;
}

/** Default models listed by `GET /v1/models`. */
export const DEFAULT_LOOPBACK_MODELS = ['loopback-gpt', 'loopback-claude'];

/** Validate a script (array of turns or `{turns, models?, api_key?}`); errors name the JSON path. */
export function parseLoopbackScript(input: unknown, source = 'script'): LoopbackScript {
  // Parse with the branch the input's shape picks, so errors point into it (a union says only "Invalid input").
  const r = Array.isArray(input) ? ScriptTurnsSchema.safeParse(input) : ScriptObjectSchema.safeParse(input);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const path = `$${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`;
    throw new AppError('INVALID_INPUT', `${source}: ${path}: ${issue.message}`, { source, path });
  }
  const s = r.data;
  if (Array.isArray(s)) return { turns: s, models: DEFAULT_LOOPBACK_MODELS, apiKey: undefined };
  return {
    turns: s.turns,
    models: s.models ?? DEFAULT_LOOPBACK_MODELS,
    apiKey: s.api_key,
    ...(s.strict_models ? { strictModels: true } : {}),
  };
}

/** Read and validate a script file. A missing file is a USAGE error; a bad one INVALID_INPUT. */
export function loadLoopbackScript(file: string): LoopbackScript {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new AppError('USAGE', `Cannot read script ${file}: ${(e as NodeJS.ErrnoException).code ?? e}`, {
      file,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new AppError('INVALID_INPUT', `${file}: not valid JSON (${(e as Error).message})`, { file });
  }
  return parseLoopbackScript(json, file);
}
