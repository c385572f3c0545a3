import type { Llm } from '../llm/index.js';
import type { SandboxHostDeps, SandboxLlm } from '../sandbox/index.js';
import type { KindContext, SandboxRuntime } from './types.js';

/** What `llm_query` says in a run without a model. */
const NO_MODEL = 'no model is configured: pass --provider and --model, or set one up in Settings';

/** The provider layer as the sandbox sees it: the run's own model. */
export function sandboxLlm(llm: Llm): SandboxLlm {
  return {
    async complete(prompt) {
      const r = await llm.generate({ messages: [{ role: 'user', content: prompt }] });
      return {
        text: r.text,
        input_tokens: r.usage.input_tokens,
        output_tokens: r.usage.output_tokens,
        model: r.model,
      };
    },
  };
}

/** The host functions' dependencies for one run of a sandboxed kind: the workspace and the run's model. */
export function runHostDeps(sandbox: SandboxRuntime, ctx: KindContext): SandboxHostDeps {
  return {
    workspace: sandbox.workspace,
    llm: ctx.scope.llm ? sandboxLlm(ctx.scope.llm) : undefined,
    noModelMessage: NO_MODEL,
  };
}
