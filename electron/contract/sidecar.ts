/** The `sidecar/*` slice of the API contract: the DSPy sidecar as a client sees it. */
import { z } from 'zod';
import type { AppErrorData } from './errors.js';

/** `sidecar/status` takes no arguments; it starts the sidecar if needed and pings it. */
export const SidecarStatusReqSchema = z.object({}).strict();
/** Request of `sidecar/status`. */
export type SidecarStatusReq = z.infer<typeof SidecarStatusReqSchema>;

/** How the sidecar is started: a bundled binary or a Python environment. */
export interface SidecarCommandView {
  kind: 'binary' | 'venv' | 'custom';
  command: string;
  args: string[];
  cwd?: string;
}

/** The versions the sidecar reports in its handshake. */
export interface SidecarVersionView {
  protocol: number;
  sidecar: string;
  python: string;
  frozen: boolean;
  methods: string[];
  callbacks: string[];
  events: string[];
  dspy: string | null;
  dspy_error?: string;
}

/** Reply of `sidecar/status`: unavailability is data (dspy modules then run their fallbacks). */
export type SidecarStatusRes =
  | {
      available: true;
      state: string;
      pid: number | undefined;
      command: SidecarCommandView | undefined;
      version: SidecarVersionView;
    }
  | { available: false; command: SidecarCommandView | null; error: AppErrorData };

/** `sidecar/manifest` takes no arguments. */
export const SidecarManifestReqSchema = z.object({}).strict();
/** Request of `sidecar/manifest`. */
export type SidecarManifestReq = z.infer<typeof SidecarManifestReqSchema>;
/** Reply of `sidecar/manifest`: the shipped templates, field types, metrics and optimizers. */
export interface SidecarManifestRes {
  templates: Array<{ id: string; description: string; example_signature: string; predictors: string[] }>;
  field_types: string[];
  reserved_fields: string[];
  metrics: string[];
  optimizers: string[];
}

/** The `sidecar/*` channels. */
export interface SidecarChannels {
  'sidecar/status': { req: SidecarStatusReq; res: SidecarStatusRes };
  'sidecar/manifest': { req: SidecarManifestReq; res: SidecarManifestRes };
}

/** Request schemas of the `sidecar/*` channels. */
export const sidecarRequestSchemas = {
  'sidecar/status': SidecarStatusReqSchema,
  'sidecar/manifest': SidecarManifestReqSchema,
};
