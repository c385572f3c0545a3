import { z } from 'zod';
import { AppError, isAppError } from '../contract/errors.js';
import type { HttpRequestInput, HttpResponseOutput } from './http-request.js';
import type { SandboxHost, SandboxLlm, SandboxLlmUsage } from './types.js';

/** The workspace queries the host functions need (implemented by `workspace/WorkspacePages`). */
export interface SandboxWorkspace {
  search(query: string, limit?: number): unknown;
  getPage(ref: string): unknown;
  getPages(refs: string[]): unknown;
  getPagesByType(type: string, limit?: number): unknown;
  getTags(ref?: string | null): unknown;
  getReferences(ref: string): unknown;
  getHistory(ref: string, limit?: number): unknown;
}

/** What a run's host functions can reach. */
export interface SandboxHostDeps {
  /** The workspace pages; without it the workspace functions fail with `NOT_FOUND`. */
  workspace?: SandboxWorkspace;
  /** The provider layer; without it `llm_query` fails with `LLM_NOT_CONFIGURED`. */
  llm?: SandboxLlm;
  /** Message for the missing-model error (e.g. how to configure one in this face of the app). */
  noModelMessage?: string;
  /** Prompts allowed per run (a batch counts each prompt). */
  maxLlmCalls?: number;
  /** Prompts of one batch run concurrently, at most this many at a time. */
  batchConcurrency?: number;
  /**
   * The network as the user granted it to the skill whose tool runs (see `http-request.ts`);
   * without it `http_request` fails with FORBIDDEN.
   */
  http?: (input: HttpRequestInput) => Promise<HttpResponseOutput>;
}

const MAX_TEXT = 200_000;
const ref = z.string().min(1).max(1000);
const limit = (max: number, dflt: number) =>
  z
    .number()
    .int()
    .min(1)
    .max(max)
    .nullish()
    .transform((v) => v ?? dflt);
const model = z.string().max(200).nullish();
const prompt = z.string().min(1).max(MAX_TEXT);

/** Argument schemas, by function name: positional, as Python passed them. */
const ARGS = {
  workspace_search: z.tuple([z.string().max(1000), limit(100, 10)]),
  get_page: z.tuple([ref]),
  get_pages: z.tuple([z.array(ref).max(200)]),
  get_pages_by_type: z.tuple([z.string().min(1).max(200), limit(1000, 100)]),
  get_tags: z.tuple([ref.nullish()]),
  get_references: z.tuple([ref]),
  get_history: z.tuple([ref, limit(500, 20)]),
  llm_query: z.tuple([prompt, model]),
  llm_query_batched: z.tuple([z.array(prompt).min(1).max(100), model]),
  http_request: z.tuple([
    z.string().min(1).max(16),
    z.string().min(1).max(8192),
    z.record(z.string().max(256), z.string().max(8192)).nullish(),
    z.string().max(2_000_000).nullish(),
  ]),
} as const;

/** The host functions Python may call (besides `submit` and `checkpoint`, handled by the pool). */
export type HostFunctionName = keyof typeof ARGS;

/** Names of every host function, for docs and tests. */
export const HOST_FUNCTIONS = Object.keys(ARGS) as HostFunctionName[];

/**
 * Build the host side of the `skilldesk` module for one run: each call is whitelisted by name, its
 * arguments validated with zod, and LLM use counted (calls, tokens, models) for the trace.
 */
export function createSandboxHost(deps: SandboxHostDeps = {}): SandboxHost {
  const usage: SandboxLlmUsage = { calls: 0, input_tokens: 0, output_tokens: 0, models: [] };
  const maxCalls = deps.maxLlmCalls ?? 50;

  const workspace = (): SandboxWorkspace => {
    if (!deps.workspace) throw new AppError('NOT_FOUND', 'no workspace is open: pass --workspace DIR');
    return deps.workspace;
  };

  const complete = async (text: string, modelName: string | null | undefined): Promise<string> => {
    if (!deps.llm) {
      throw new AppError(
        'LLM_NOT_CONFIGURED',
        deps.noModelMessage ?? 'no model configured: pass --provider …',
      );
    }
    if (usage.calls >= maxCalls)
      throw new AppError('SANDBOX_LIMIT', `at most ${maxCalls} llm_query prompts per run`);
    usage.calls++;
    try {
      const r = await deps.llm.complete(text, modelName ? { model: modelName } : undefined);
      usage.input_tokens += r.input_tokens ?? 0;
      usage.output_tokens += r.output_tokens ?? 0;
      const used = r.model ?? modelName;
      if (used && !usage.models.includes(used)) usage.models.push(used);
      return String(r.text ?? '');
    } catch (e) {
      if (isAppError(e)) throw e;
      throw new AppError('LLM_FAILED', `the model call failed: ${(e as Error)?.message ?? e}`);
    }
  };

  return {
    usage: () => ({ ...usage, models: [...usage.models] }),
    async call(fn: string, args: unknown[]): Promise<unknown> {
      if (!Object.hasOwn(ARGS, fn))
        throw new AppError('NOT_FOUND', `skilldesk has no host function ${JSON.stringify(fn).slice(0, 80)}`);
      const name = fn as HostFunctionName;
      const schema = ARGS[name];
      // Python leaves trailing optional arguments as None; pad to the tuple's length.
      const padded = [...args];
      while (padded.length < schema.def.items.length) padded.push(null);
      const parsed = schema.safeParse(padded);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new AppError(
          'INVALID_INPUT',
          `${name}: argument ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}`,
        );
      }
      const a = parsed.data;
      switch (name) {
        case 'workspace_search': {
          const [q, n] = a as z.infer<(typeof ARGS)['workspace_search']>;
          return workspace().search(q, n);
        }
        case 'get_page':
          return workspace().getPage((a as [string])[0]);
        case 'get_pages':
          return workspace().getPages((a as [string[]])[0]);
        case 'get_pages_by_type': {
          const [t, n] = a as z.infer<(typeof ARGS)['get_pages_by_type']>;
          return workspace().getPagesByType(t, n);
        }
        case 'get_tags':
          return workspace().getTags((a as [string | null | undefined])[0] ?? null);
        case 'get_references':
          return workspace().getReferences((a as [string])[0]);
        case 'get_history': {
          const [r, n] = a as z.infer<(typeof ARGS)['get_history']>;
          return workspace().getHistory(r, n);
        }
        case 'llm_query': {
          const [p, m] = a as z.infer<(typeof ARGS)['llm_query']>;
          return complete(p, m);
        }
        case 'llm_query_batched': {
          const [ps, m] = a as z.infer<(typeof ARGS)['llm_query_batched']>;
          if (usage.calls + ps.length > maxCalls) {
            throw new AppError('SANDBOX_LIMIT', `at most ${maxCalls} llm_query prompts per run`);
          }
          const out: string[] = new Array(ps.length);
          let next = 0;
          const worker = async () => {
            while (next < ps.length) {
              const i = next++;
              out[i] = await complete(ps[i]!, m);
            }
          };
          await Promise.all(Array.from({ length: Math.min(ps.length, deps.batchConcurrency ?? 4) }, worker));
          return out;
        }
        case 'http_request': {
          const [method, url, headers, body] = a as z.infer<(typeof ARGS)['http_request']>;
          if (!deps.http) {
            throw new AppError(
              'FORBIDDEN',
              'no network here: only the tools of an LLM skill reach the network, and only the hosts the user granted that skill',
            );
          }
          return deps.http({ method, url, headers: headers ?? {}, body: body ?? null });
        }
      }
    },
  };
}
