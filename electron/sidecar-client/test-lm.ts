// Test-only helpers: a deterministic LM that answers DSPy's chat format, and venv detection.
import { existsSync } from 'node:fs';
import type { CallOptions, LmHandler, SidecarClient } from './client.js';
import { findAppRoot, venvPython } from './command.js';
import type {
  ExecuteReq,
  ExecuteRes,
  LmRequest,
  LmResponse,
  OptimizeProgress,
  OptimizeReq,
  OptimizeRes,
} from './protocol.js';

/** The repo root and sidecar/.venv's Python, when it exists. */
export const APP_ROOT = findAppRoot();
export const VENV_PYTHON = venvPython(APP_ROOT);
/** Why the real-process tests are skipped, or undefined when they can run. */
export const NO_VENV = existsSync(VENV_PYTHON)
  ? undefined
  : `sidecar/.venv is missing (${VENV_PYTHON}): run \`node scripts/setup-sidecar.mjs\` to run the sidecar tests`;

const FIELD = /\[\[ ## (\w+) ## \]\]\n([\s\S]*?)(?=\n\n\[\[ ## |\n\nRespond |$)/g;
const WANTED = /`\[\[ ## (\w+) ## \]\]`/g;

/** Upper-cases the first input field into every output field (`reasoning` gets "because …"). */
export function dspyAnswerText(req: LmRequest): string {
  const last = req.messages[req.messages.length - 1]?.content ?? '';
  const inputs = [...last.matchAll(FIELD)].map((m) => m[2]!.trim());
  const first = inputs[0] ?? '';
  const wanted = [...last.matchAll(WANTED)].map((m) => m[1]!).filter((n) => n !== 'completed');
  const parts = wanted.map(
    (name) => `[[ ## ${name} ## ]]\n${name === 'reasoning' ? `because ${first}` : first.toUpperCase()}`,
  );
  return [...parts, '[[ ## completed ## ]]'].join('\n\n');
}

/** An instant LM handler for the sidecar built on {@link dspyAnswerText}. */
export async function fakeLm(req: LmRequest): Promise<LmResponse> {
  const text = dspyAnswerText(req);
  return { text, input_tokens: 10, output_tokens: 5 };
}

/** A client whose `execute` and `optimize` answer completions with `lm` unless a call brings its own. */
export type LmBoundClient = Omit<SidecarClient, 'execute' | 'optimize'> & {
  execute(req: ExecuteReq & CallOptions & { lm?: LmHandler }): Promise<ExecuteRes>;
  optimize(
    req: OptimizeReq & CallOptions & { lm?: LmHandler; onProgress?: (p: OptimizeProgress) => void },
  ): Promise<OptimizeRes>;
};

/** Tests and benchmarks that drive one client with one LM bind it once here. */
export function withLm(client: SidecarClient, lm: LmHandler): LmBoundClient {
  return {
    ...client,
    execute: (req) => client.execute({ lm, ...req }),
    optimize: (req) => client.optimize({ lm, ...req }),
  };
}
