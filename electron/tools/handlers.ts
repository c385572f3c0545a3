import { randomUUID } from 'node:crypto';
import type { Handlers } from '../contract/channels.js';
import { AppError } from '../contract/errors.js';
import { type ArtifactDispatcher, createRunScope, type ScriptRunners } from '../dispatch/index.js';
import type { Llm } from '../llm/index.js';
import {
  acceptNativeRuntime,
  chatFilesRoot,
  chatFolder,
  effectiveRuntime,
  grantPrograms,
  programGrants,
  revokeNativeRuntime,
  revokePrograms,
  runtimePreference,
  scriptRuntimeFor,
  scriptRuntimeStatus,
} from '../scripts/index.js';
import type { SkillCatalog } from '../skills/index.js';
// Directly the pin module, not the sources index (which reads this registry's effects).
import { assertPinned } from '../sources/index.js';
import type { SkillStore } from '../store/index.js';
import { callBuiltinTool } from './registry.js';

/** The folder `run_python` calls from outside a chat (MCP clients) work in. */
export const MCP_FOLDER = 'mcp-calls';

/** What the tool slice needs from the open workspace (the host's workspace session fits). */
export interface ToolHandlerDeps {
  session: {
    workspace: string | undefined;
    catalog: { get(): SkillCatalog };
    writeStore(): SkillStore;
    runtime(store: SkillStore): { dispatcher: ArtifactDispatcher } & ScriptRunners;
  };
  /** The model of a call made from outside a chat (Settings', or the CLI's flags). */
  llm: () => Llm | null;
  /** The account's data folder, where the script runtimes' environments and acceptances live. */
  home: string;
}

/**
 * `skills/call-tool`: a built-in tool called from outside a chat (the MCP server's tools). The
 * call is its own entry point: one scope, a session of its own, no approval flow (as `skills/run`).
 */
export function createToolHandlers(deps: ToolHandlerDeps) {
  return {
    'skills/call-tool': (req, ctx) => {
      if (req.folders?.length && ctx.transport !== 'in-process')
        throw new AppError(
          'FORBIDDEN',
          'folders of this machine can be granted to tool calls only from the command line (skilldesk mcp serve --folder DIR)',
        );
      const { session } = deps;
      const store = session.writeStore();
      const cat = session.catalog.get();
      const scope = createRunScope({
        session_id: `mcp-${randomUUID()}`,
        workspace: session.workspace,
        llm: deps.llm(),
        signal: ctx.signal,
        // Calls from outside a chat share one folder, so a file one call wrote is there for the next.
        files: chatFolder(chatFilesRoot(store), MCP_FOLDER),
        // No chat: the workspace's runtime, else Settings'.
        python: effectiveRuntime({
          chat: null,
          workspace: cat.workspace ? runtimePreference(cat.workspace.db) : null,
          settings: runtimePreference(cat.account.db),
        }).runtime,
        folders: req.folders,
      });
      return callBuiltinTool(req.name, req.args ?? {}, {
        scope,
        catalog: cat,
        dispatcher: session.runtime(store).dispatcher,
        runners: session.runtime(store),
        call_id: null,
      });
    },
    'scripts/run': async (req, ctx) => {
      if ((req.files?.length || req.folders?.length) && ctx.transport !== 'in-process')
        throw new AppError(
          'FORBIDDEN',
          'files and folders of this machine can be given to a script only from the command line (skilldesk skills run-script --file/--folder); a chat passes its attachments',
        );
      const { skill, scope, runner } = scriptsOf(deps, req.name);
      // As `skills/run`: nobody is asked before a CLI run, so a skill changed since it was accepted
      // from its source does not run (a chat's `run_script` asks again instead).
      assertPinned(deps.session.catalog.get().store(scope), skill, scope);
      const r = await runner.run(skill, {
        script: req.script,
        argv: req.args ?? [],
        stdin: req.stdin,
        timeoutMs: req.timeout_ms,
        signal: ctx.signal,
        queue: `cli-${randomUUID()}`,
        inputs: [...(req.files ?? []), ...(req.folders ?? []).map((f) => ({ ...f, folder: true }))],
      });
      return r;
    },
    'scripts/read-output': (req) => {
      const runner = deps.session.runtime(deps.session.writeStore()).scripts;
      if (!runner) throw new AppError('HANDLER_NOT_AVAILABLE', 'the Python sandbox is turned off');
      const { bytes, media_type } = runner.readOutput(req.run_id, req.path);
      return { path: req.path, media_type, size: bytes.length, data_base64: bytes.toString('base64') };
    },
    'scripts/install-packages': async (req, ctx) => {
      const { skill, scope, runner } = scriptsOf(deps, req.name);
      // The packages are those its requirements file names: a changed file is not fetched unasked.
      assertPinned(deps.session.catalog.get().store(scope), skill, scope);
      return runner.installPackages(skill, ctx.signal, {
        fromImports: req.from_imports,
        acceptNative: req.accept_native,
        native: req.native,
        expected: req.packages,
      });
    },
    'scripts/runtime-status': (req) => scriptRuntimeStatus(deps.home, skillOf(deps, req.name)),
    'scripts/set-native-runtime': async (req) => {
      const skill = skillOf(deps, req.name);
      let changed: boolean;
      if (req.accepted) {
        // The acceptance records the compiled packages the user was told about, as the page lists them.
        changed = true;
        acceptNativeRuntime(deps.home, skill.name, scriptRuntimeFor(deps.home, skill.name).compiled);
      } else changed = revokeNativeRuntime(deps.home, skill.name);
      return { ...(await scriptRuntimeStatus(deps.home, skill)), changed };
    },
    'scripts/set-programs': (req) => {
      const skill = skillOf(deps, req.name);
      let changed = true;
      if (req.granted) grantPrograms(deps.home, skill.name, req.programs);
      else changed = revokePrograms(deps.home, skill.name, req.programs);
      return { skill: skill.name, granted: programGrants(deps.home, skill.name), changed };
    },
  } satisfies Pick<
    Handlers,
    | 'scripts/set-programs'
    | 'skills/call-tool'
    | 'scripts/run'
    | 'scripts/read-output'
    | 'scripts/install-packages'
    | 'scripts/runtime-status'
    | 'scripts/set-native-runtime'
  >;
}

/** The skill named `name` (the workspace's first), or NOT_FOUND. */
function skillOf(deps: ToolHandlerDeps, name: string) {
  const found = deps.session.catalog.get().resolve(name);
  if (!found) throw new AppError('NOT_FOUND', `no skill named "${name}" (skilldesk skills list shows them)`);
  return found.skill;
}

/** The skill named `name` and the runtime's script runner, or NOT_FOUND / HANDLER_NOT_AVAILABLE. */
function scriptsOf(deps: ToolHandlerDeps, name: string) {
  const found = deps.session.catalog.get().resolve(name);
  if (!found) throw new AppError('NOT_FOUND', `no skill named "${name}" (skilldesk skills list shows them)`);
  const runner = deps.session.runtime(deps.session.writeStore()).scripts;
  if (!runner)
    throw new AppError('HANDLER_NOT_AVAILABLE', 'the Python sandbox is turned off; scripts cannot run');
  return { skill: found.skill, scope: found.scope, runner };
}
