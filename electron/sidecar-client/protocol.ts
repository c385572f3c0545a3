/**
 * The sidecar protocol, mirrored in Python by `sidecar/skilldesk_sidecar/protocol.py`:
 * one JSON object per line on stdio, ids per direction (`n…` from Node, `p…` from Python).
 *
 * Every message from the sidecar is untrusted and checked with these schemas.
 */
import { z } from 'zod';
import { OPTIMIZE_METRICS, OPTIMIZERS } from '../contract/skills.js';

/** Protocol version both sides must agree on (checked at start-up). */
export const SIDECAR_PROTOCOL_VERSION = 1;

/** Methods the main process calls on the sidecar. A test checks Python lists the same. */
export const SIDECAR_METHODS = ['ping', 'version', 'manifest', 'execute', 'optimize', 'cancel'] as const;
/** Methods the sidecar calls on the main process while one of its requests is open. */
export const SIDECAR_CALLBACKS = ['lm.complete'] as const;
/** Events the sidecar emits about an open request. */
export const SIDECAR_EVENTS = ['progress'] as const;

/** A protocol method name. */
export type SidecarMethod = (typeof SIDECAR_METHODS)[number];

const Id = z.string().min(1).max(64);
const Json = z.record(z.string(), z.unknown());
const Count = z.number().int().nonnegative();

/** An error reply body, as either side sends it. */
export const WireErrorSchema = z.object({
  code: z.string().min(1).max(64),
  message: z.string().max(20_000),
  details: Json.optional(),
});

/** Any line the sidecar may write. `result` presence is checked separately (it may be null). */
export const SidecarLineSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('res'),
    id: Id.nullable(),
    result: z.unknown().optional(),
    error: WireErrorSchema.optional(),
  }),
  z.object({ type: z.literal('event'), parent: Id, event: z.enum(SIDECAR_EVENTS), data: Json }),
  z.object({
    type: z.literal('req'),
    id: Id,
    method: z.enum(SIDECAR_CALLBACKS),
    parent: Id,
    params: z.unknown(),
  }),
]);

/** One parsed line from the sidecar. */
export type SidecarLine = z.infer<typeof SidecarLineSchema>;

/** A chat message of an LM request. */
export const LmMessageSchema = z.strictObject({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string().max(4_000_000),
});

/** `lm.complete` params: what DSPy asks the main process to complete. */
export const LmRequestSchema = z.strictObject({
  model: z.string().min(1).max(200).optional(),
  messages: z.array(LmMessageSchema).min(1).max(512),
  temperature: z.number().min(0).max(10).optional(),
  max_tokens: z.number().int().positive().max(10_000_000).optional(),
});

/** A completion request from the sidecar (validated). */
export type LmRequest = z.infer<typeof LmRequestSchema>;

/** What the injected LM handler answers. */
export const LmResponseSchema = z.object({
  text: z.string(),
  input_tokens: Count.optional(),
  output_tokens: Count.optional(),
});

/** A completion as the main process's provider layer returns it. */
export type LmResponse = z.infer<typeof LmResponseSchema>;

/** LM usage of one request, counted on the Node side (the sidecar's own count is not trusted). */
export interface SidecarUsage {
  lm_calls: number;
  input_tokens: number;
  output_tokens: number;
}

const UsageSchema = z.object({ lm_calls: Count, input_tokens: Count, output_tokens: Count });

/** A DSPy state blob: the JSON `module.save(path, save_program=False)` writes. */
export type StateBlob = Record<string, unknown>;

const StateBlobArg = z.union([Json, z.string()]).nullable();

/** `execute` params. */
export const ExecuteReqSchema = z.object({
  /** A shipped template (`predict`, `chain_of_thought`, `draft_refine`; see `manifest`). */
  template_id: z.string(),
  /** `"claims -> contradictions"`; field types `str` (default), `int`, `float`, `bool`, `list[str]`. */
  signature: z.string(),
  /** Optimized state; a JSON object, its text, or base64 of that text. */
  state_blob: StateBlobArg.optional(),
  /** Input values, one per input field of the signature (extra keys are ignored). */
  params: Json,
  /** Instructions for a fresh module (a state blob carries its own). */
  instructions: z.string().optional(),
  /** The model the LM handler should use; absent = its default. */
  model: z.string().optional(),
});

/** `execute` params. */
export type ExecuteReq = z.infer<typeof ExecuteReqSchema>;

/** `execute` result. */
export const ExecuteResSchema = z.object({
  template_id: z.string(),
  outputs: Json,
  usage: UsageSchema,
  warnings: z.array(z.string()),
});

/** The result of one `execute`. */
export type ExecuteRes = z.infer<typeof ExecuteResSchema>;

/** The metrics and optimizers the sidecar ships (defined in the contract). */
export { OPTIMIZE_METRICS, OPTIMIZERS };

/** `optimize` params. */
export const OptimizeReqSchema = z.object({
  template_id: z.string(),
  signature: z.string(),
  /** Rows holding every input and output field of the signature. */
  training_data: z.array(Json),
  metric: z.enum(OPTIMIZE_METRICS).optional(),
  optimizer: z.enum(OPTIMIZERS).optional(),
  /** Demos per predictor, 1..16 (default 4). */
  max_demos: z.number().int().optional(),
  /** Score the compiled program on the training set (one more run per example). */
  evaluate: z.boolean().optional(),
  /** A state to start from. */
  state_blob: StateBlobArg.optional(),
  instructions: z.string().optional(),
  model: z.string().optional(),
});

/** `optimize` params. */
export type OptimizeReq = z.infer<typeof OptimizeReqSchema>;

/** `optimize` result. */
export const OptimizeResSchema = z.object({
  template_id: z.string(),
  state_blob: Json,
  demos: z.record(z.string(), Count),
  warnings: z.array(z.string()),
  score: z.number().min(0).max(1).optional(),
  usage: UsageSchema,
});

/** The result of one `optimize`. */
export type OptimizeRes = z.infer<typeof OptimizeResSchema>;

/** A `progress` event of `optimize`. */
export const OptimizeProgressSchema = z.object({
  phase: z.enum(['compile', 'evaluate']),
  done: Count,
  total: Count,
});

/** Optimization progress: `done` of `total` training examples in a phase. */
export type OptimizeProgress = z.infer<typeof OptimizeProgressSchema>;

/** `manifest` result: the shipped templates. */
export const ManifestResSchema = z.object({
  templates: z.array(
    z.object({
      id: z.string(),
      description: z.string(),
      example_signature: z.string(),
      predictors: z.array(z.string()),
    }),
  ),
  field_types: z.array(z.string()),
  reserved_fields: z.array(z.string()),
  metrics: z.array(z.string()),
  optimizers: z.array(z.string()),
});

/** What templates, metrics and optimizers the sidecar offers. */
export type ManifestRes = z.infer<typeof ManifestResSchema>;

/** `version` result (also the start-up handshake). */
export const VersionResSchema = z.object({
  protocol: z.number().int(),
  sidecar: z.string(),
  python: z.string(),
  frozen: z.boolean(),
  methods: z.array(z.string()),
  callbacks: z.array(z.string()),
  events: z.array(z.string()),
  dspy: z.string().nullable(),
  dspy_error: z.string().optional(),
  /**
   * Whether DSPy's import has finished. The handshake does not wait for it (it costs over a
   * second); `dspy` then names the installed version and the first DSPy request waits for the import.
   */
  dspy_loaded: z.boolean().optional(),
});

/** Versions of the running sidecar. */
export type VersionRes = z.infer<typeof VersionResSchema>;

/** The method table: params and result of each protocol method. */
export interface SidecarMethodMap {
  ping: { params: Record<string, never>; result: { pong: true } };
  version: { params: Record<string, never>; result: VersionRes };
  manifest: { params: Record<string, never>; result: ManifestRes };
  execute: { params: ExecuteReq; result: ExecuteRes };
  optimize: { params: OptimizeReq; result: OptimizeRes };
  cancel: { params: { id: string }; result: { cancelled: boolean } };
}

/** Params schemas keyed by method (what the sidecar validates on its side). */
export const PARAMS_SCHEMAS: { [M in SidecarMethod]: z.ZodType<SidecarMethodMap[M]['params']> } = {
  ping: z.object({}) as z.ZodType<Record<string, never>>,
  version: z.object({}) as z.ZodType<Record<string, never>>,
  manifest: z.object({}) as z.ZodType<Record<string, never>>,
  execute: ExecuteReqSchema,
  optimize: OptimizeReqSchema,
  cancel: z.object({ id: Id }),
};

/** Result schemas keyed by method: a missing method fails `tsc`. */
export const RESULT_SCHEMAS: { [M in SidecarMethod]: z.ZodType<SidecarMethodMap[M]['result']> } = {
  ping: z.object({ pong: z.literal(true) }),
  version: VersionResSchema,
  manifest: ManifestResSchema,
  execute: ExecuteResSchema,
  optimize: OptimizeResSchema,
  cancel: z.object({ cancelled: z.boolean() }),
};

/**
 * The content of a `dspy_module` artifact: which shipped template runs and with what signature
 * (e.g. `{"template_id": "chain_of_thought", "signature": "claims -> contradictions"}`).
 */
export const DspyModuleContentSchema = z.object({
  template_id: z.string().min(1).max(64),
  signature: z.string().min(1).max(2000),
  instructions: z.string().max(100_000).optional(),
  model: z.string().min(1).max(200).optional(),
});

/** A parsed `dspy_module` artifact content. */
export type DspyModuleContent = z.infer<typeof DspyModuleContentSchema>;
