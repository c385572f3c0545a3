/**
 * The sidecar protocol as one JSON document (`sidecar/protocol.json`), generated from the zod
 * schemas here. The Python side loads it in its tests and checks that its methods, message
 * shapes and error codes agree; a vitest checks the file matches these schemas.
 */
import { z } from 'zod';
import { ERROR_CODES } from '../contract/errors.js';
import { RpcMessageSchema, WireErrorSchema } from '../rpc/index.js';
import {
  LmRequestSchema,
  LmResponseSchema,
  OptimizeProgressSchema,
  PARAMS_SCHEMAS,
  RESULT_SCHEMAS,
  SIDECAR_CALLBACKS,
  SIDECAR_EVENTS,
  SIDECAR_METHODS,
  SIDECAR_PROTOCOL_VERSION,
  SidecarLineSchema,
} from './protocol.js';

/** Where the document lives, relative to the project root. */
export const PROTOCOL_DOCUMENT_PATH = 'sidecar/protocol.json';

const schema = (s: z.ZodType) => {
  const json = z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
};

/** The protocol document: methods, callbacks, events, error codes and a JSON Schema per shape. */
export function sidecarProtocolDocument() {
  const shapes: Record<string, Record<string, unknown>> = {
    'message.to_sidecar': schema(RpcMessageSchema),
    'message.from_sidecar': schema(SidecarLineSchema),
    error: schema(WireErrorSchema),
  };
  for (const m of SIDECAR_METHODS) {
    shapes[`${m}.params`] = schema(PARAMS_SCHEMAS[m]);
    shapes[`${m}.result`] = schema(RESULT_SCHEMAS[m]);
  }
  shapes['lm.complete.params'] = schema(LmRequestSchema);
  shapes['lm.complete.result'] = schema(LmResponseSchema);
  shapes['progress.data'] = schema(OptimizeProgressSchema);
  return {
    protocol: SIDECAR_PROTOCOL_VERSION,
    methods: [...SIDECAR_METHODS],
    callbacks: [...SIDECAR_CALLBACKS],
    events: [...SIDECAR_EVENTS],
    /** Codes either side may send; a code the main process does not know becomes SIDECAR_FAILED. */
    error_codes: [...ERROR_CODES],
    shapes,
  };
}

/** The document as it is written to disk. */
export function sidecarProtocolJson(): string {
  return `${JSON.stringify(sidecarProtocolDocument(), null, 2)}\n`;
}
