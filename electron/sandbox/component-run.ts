import { z } from 'zod';
import { AppError } from '../contract/errors.js';
import { componentCacheEntry, componentHash, prepareComponent } from './components.js';
import { createSandboxHost, type SandboxHostDeps } from './host-functions.js';
import { SandboxLimitsOverrideSchema } from './limits.js';
import type { SandboxPool } from './pool.js';
import type { SandboxHost, SandboxRunResult } from './types.js';

/** A `wasm_component` artifact as the runner needs it: base64 content, metadata with its limits. */
export interface ComponentArtifact {
  content: string;
  metadata?: Record<string, unknown> | null;
}

/** Metadata of a component artifact: its file path, encoding, and limits within the sandbox's maxima. */
export const ComponentMetadataSchema = z.looseObject({
  path: z.string().max(1000).optional(),
  encoding: z.literal('base64').optional(),
  ...SandboxLimitsOverrideSchema.shape,
});

/** Options of {@link runComponentArtifact}. */
export interface ComponentRunOptions {
  host?: SandboxHost;
  hostDeps?: SandboxHostDeps;
  /** Caller overrides; win over the artifact's metadata. */
  limits?: z.infer<typeof SandboxLimitsOverrideSchema>;
  queue?: string;
  /** Aborted when the caller gives up (the chat's Stop): the component's worker ends at once. */
  signal?: AbortSignal;
}

/** A component run: the sandbox result plus the input it got and which component ran. */
export interface ComponentRunResult extends SandboxRunResult {
  input: string;
  sha256: string;
  size: number;
}

/**
 * Run a `wasm_component` artifact: its variables as the JSON `input` of `run`, in the sandbox's
 * component worker, transpiling it first if the cache does not hold it (a cleared cache, another
 * machine's import). Broken limits, traps and `err` results are data; bad metadata or a component
 * the world refuses throws an AppError.
 */
export async function runComponentArtifact(
  pool: SandboxPool,
  componentDir: string,
  artifact: ComponentArtifact,
  variables: Record<string, unknown>,
  opts: ComponentRunOptions = {},
): Promise<ComponentRunResult> {
  const meta = ComponentMetadataSchema.safeParse(artifact.metadata ?? {});
  if (!meta.success) {
    const issue = meta.error.issues[0];
    throw new AppError(
      'INVALID_INPUT',
      `wasm_component metadata ${issue?.path.join('.') ?? ''}: ${issue?.message}`,
    );
  }
  const { path: _path, encoding: _encoding, ...rest } = meta.data;
  const metaLimits = SandboxLimitsOverrideSchema.parse(rest);
  const bytes = new Uint8Array(Buffer.from(artifact.content, 'base64'));
  const sha256 = componentHash(bytes);
  if (!componentCacheEntry(componentDir, sha256).ready) await prepareComponent(bytes, componentDir);
  const input = JSON.stringify(variables);
  const limits = { ...metaLimits, ...opts.limits };
  const host =
    opts.host ??
    createSandboxHost({ ...opts.hostDeps, maxLlmCalls: opts.hostDeps?.maxLlmCalls ?? limits.llm_calls });
  const result = await pool.runComponent(sha256, input, {
    limits,
    host,
    queue: opts.queue,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  return { ...result, input, sha256, size: bytes.length };
}
