import { randomUUID } from 'node:crypto';
import type { Handlers } from '../contract/channels.js';
import { type ArtifactDispatcher, createRunScope } from '../dispatch/index.js';
import type { Llm } from '../llm/index.js';
import type { SkillCatalog } from '../skills/index.js';
import type { SkillStore } from '../store/index.js';
import { callBuiltinTool } from './registry.js';

/** What the tool slice needs from the open workspace (the host's workspace session fits). */
export interface ToolHandlerDeps {
  session: {
    workspace: string | undefined;
    catalog: { get(): SkillCatalog };
    writeStore(): SkillStore;
    runtime(store: SkillStore): { dispatcher: ArtifactDispatcher };
  };
  /** The model of a call made from outside a chat (Settings', or the CLI's flags). */
  llm: () => Llm | null;
}

/**
 * `skills/call-tool`: a built-in tool called from outside a chat (the MCP server's tools). The
 * call is its own entry point: one scope, a session of its own, no approval flow (as `skills/run`).
 */
export function createToolHandlers(deps: ToolHandlerDeps) {
  return {
    'skills/call-tool': (req, ctx) => {
      const { session } = deps;
      const scope = createRunScope({
        session_id: `mcp-${randomUUID()}`,
        workspace: session.workspace,
        llm: deps.llm(),
        signal: ctx.signal,
      });
      return callBuiltinTool(req.name, req.args ?? {}, {
        scope,
        catalog: session.catalog.get(),
        dispatcher: session.runtime(session.writeStore()).dispatcher,
        call_id: null,
      });
    },
  } satisfies Pick<Handlers, 'skills/call-tool'>;
}
