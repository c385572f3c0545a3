import { join } from 'node:path';
import { AppError } from '../contract/errors.js';
import { ARTIFACT_KINDS } from '../contract/kinds.js';
import {
  type DspyRunner,
  KINDS,
  type KindRuntimes,
  type LlmSkillHost,
  NO_LLM,
  settle,
} from '../kinds/index.js';
import { type Llm, modelId } from '../llm/index.js';
import {
  createSandboxHost,
  runCodeTemplate,
  SandboxPool,
  type SandboxRunResult,
  type SandboxWorkspace,
  type SpawnSandboxProcess,
} from '../sandbox/index.js';
import {
  createPythonRunner,
  createSkillScriptRunner,
  type FullPython,
  fullPythonRuntime,
  fullPythonUnavailable,
  type PythonRunner,
  pyodideRuntime,
  type SkillScriptRunner,
} from '../scripts/index.js';
import { createSidecarClient, type LmHandler, type SidecarClient } from '../sidecar-client/index.js';
import { skillPackages } from '../skills/index.js';
import { createFileStore } from '../store/index.js';
import { PromptEngine } from '../templates/index.js';
import type { TraceStore } from '../traces/index.js';
import { ArtifactDispatcher } from './dispatcher.js';
import type { ArtifactHandler, ArtifactHandlers } from './types.js';

/** The dispatcher's handler table: each kind's executor over the process's runtimes. */
export function kindHandlers(runtimes: KindRuntimes): ArtifactHandlers {
  return Object.fromEntries(
    ARTIFACT_KINDS.map((kind) => [
      kind,
      { kind, execute: (a, ctx) => KINDS[kind].execute(a, ctx, runtimes) } satisfies ArtifactHandler,
    ]),
  ) as ArtifactHandlers;
}

/** What the skill runtime is built from. */
export interface SkillRuntimeDeps {
  traces: TraceStore;
  /** The account data folder (sandbox cache, sidecar cache). */
  home: string;
  /** Workspace pages for the sandbox's host functions. */
  workspace?: SandboxWorkspace;
  /** `false` disables the sandbox (its artifacts then fail). */
  sandbox?: boolean;
  /** Injected sidecar client (tests); default: started lazily on the first dspy_module. */
  sidecarClient?: SidecarClient;
  /**
   * Where the sidecar client comes from when one is shared (the host's); the runtime then does not
   * stop it on dispose. Default: a client of its own, started lazily.
   */
  sidecar?: (() => SidecarClient) | false;
  /** How sandbox processes start (the desktop passes Electron-as-Node); default: this Node binary. */
  spawnSandbox?: SpawnSandboxProcess;
  /** Whether the user accepted in-process isolation where the OS cannot confine the sandbox. */
  allowInProcessIsolation?: () => boolean;
  /** The package index the user set in Settings (undefined: PyPI), read at each install. */
  packageIndex?: () => string | undefined;
  /** A packaged app's resources folder, where the bundled sidecar binary lives. */
  resourcesPath?: string;
  log?: (line: string) => void;
  /** Other providers, secrets and network grants for LLM skills (none: only the run's model). */
  llmSkill?: LlmSkillHost;
  /** Full Python's managed environment; without it `run_python` offers Pyodide only. */
  fullPython?: FullPython;
}

/**
 * The runners beside the dispatcher: a skill's bundled scripts and the model's own Python. The
 * tools that run them reach them through their context, not through the dispatcher,
 * which runs artifacts only; null where the runtime has no sandbox.
 */
export interface ScriptRunners {
  scripts: SkillScriptRunner | null;
  python: PythonRunner | null;
}

/** The dispatcher with every handler wired to its real runtime, the script runners, plus lifecycle. */
export interface SkillRuntime extends ScriptRunners {
  dispatcher: ArtifactDispatcher;
  engine: PromptEngine;
  /** Run one Python program in this runtime's sandbox pool (no template, no trace). */
  runCode(code: string, opts?: RunCodeOptions): Promise<SandboxRunResult>;
  /**
   * Start the sandbox pool now, in the background, so the first run finds a warm worker (the app
   * does this once it has opened). A start that fails is retried, and reported, by the
   * first run.
   */
  warmSandbox(): void;
  /** Stop the sandbox pool and the sidecar. */
  dispose(): Promise<void>;
}

/** Options of {@link SkillRuntime.runCode}. */
export interface RunCodeOptions {
  timeout_ms?: number;
  /** What `llm_query` raises with (the program runs without a model). */
  noModelMessage?: string;
}

/**
 * Answer the completions one sidecar call asks for with the model of the run that made it (null:
 * each fails with LLM_NOT_CONFIGURED, which `labeled_few_shot` optimizing never hits).
 */
export function sidecarLm(llm: Llm | null): LmHandler {
  return async (req, ctx) => {
    if (!llm) throw new AppError('LLM_NOT_CONFIGURED', 'no model is configured for the DSPy sidecar');
    const system = req.messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n\n');
    const messages = req.messages
      .filter((m) => m.role !== 'system')
      .map((m) => ({ role: m.role as 'user' | 'assistant', content: m.content }));
    const r = await llm.generate({
      system: system || undefined,
      messages,
      temperature: req.temperature,
      maxOutputTokens: req.max_tokens,
      signal: ctx.signal,
    });
    return { text: r.text, input_tokens: r.usage.input_tokens, output_tokens: r.usage.output_tokens };
  };
}

/**
 * Build the dispatcher: text kinds inject, `prompt_template` renders and calls the model,
 * `code_template` runs in the Pyodide sandbox pool (started on first use), `dspy_module` runs in
 * the sidecar (started on first use) and falls back to its prompt template when that is unavailable.
 */
export function createSkillRuntime(deps: SkillRuntimeDeps): SkillRuntime {
  const engine = new PromptEngine();
  let pool: SandboxPool | null = null;
  let disposed = false;
  let sidecar: SidecarClient | null = deps.sidecarClient ?? null;
  const sharedSidecar = typeof deps.sidecar === 'function' ? deps.sidecar : null;
  const componentDir = join(deps.home, 'cache', 'components');
  const sandboxPool = () =>
    (pool ??= new SandboxPool({
      cacheDir: join(deps.home, 'cache'),
      componentDir,
      log: deps.log,
      spawn: deps.spawnSandbox,
      allowInProcessIsolation: deps.allowInProcessIsolation,
    }));

  const runner: DspyRunner | null =
    deps.sidecar === false
      ? null
      : {
          async execute(req, ctx) {
            const { llm, signal } = ctx.scope;
            if (!llm) return { ok: false, error: NO_LLM };
            if (!req.signature)
              return {
                ok: false,
                error: {
                  code: 'INVALID_INPUT',
                  message: 'dspy_module content needs a "signature" such as "claims -> contradictions"',
                },
              };
            sidecar ??=
              sharedSidecar?.() ??
              createSidecarClient({
                dataDir: join(deps.home, 'sidecar'),
                resourcesPath: deps.resourcesPath,
              });
            const client = sidecar;
            const signature = req.signature;
            const r = await settle(() =>
              client.execute({
                template_id: req.template_id,
                signature,
                state_blob: (req.state_blob as Record<string, unknown> | null) ?? null,
                params: req.params,
                // Informative only (the sidecar echoes it): the completions are answered by `lm`.
                ...(modelId(llm)!.length <= 200 ? { model: modelId(llm)! } : {}),
                lm: sidecarLm(llm),
                signal,
              }),
            );
            if (!r.ok) return r;
            return {
              ok: true,
              value: {
                output: r.value.outputs,
                input_tokens: r.value.usage.input_tokens,
                output_tokens: r.value.usage.output_tokens,
                model_id: modelId(llm),
              },
            };
          },
        };

  const runtimes: KindRuntimes = {
    render: (source, variables, name) => engine.renderStr(source, variables, { name }),
    sandbox: deps.sandbox === false ? null : { pool: sandboxPool, componentDir, workspace: deps.workspace },
    sidecar: runner,
    run: (artifact, ctx) => KINDS[artifact.kind].execute(artifact as never, ctx, runtimes),
    llmSkill: deps.llmSkill,
  };
  const scripts =
    deps.sandbox === false
      ? null
      : createSkillScriptRunner({
          pool: sandboxPool,
          outputDir: join(deps.home, 'cache', 'script-outputs'),
          home: deps.home,
          packagesFor: (skill) => skillPackages(deps.home, skill),
          packageIndex: deps.packageIndex,
          files: createFileStore(join(deps.home, 'files')),
          grants: (skill) => deps.llmSkill?.grants(skill) ?? [],
        });
  const python =
    deps.sandbox === false
      ? null
      : createPythonRunner({
          pyodide: pyodideRuntime(sandboxPool),
          full: deps.fullPython ? fullPythonRuntime(deps.fullPython) : fullPythonUnavailable(),
        });
  const dispatcher = new ArtifactDispatcher(kindHandlers(runtimes), deps.traces);

  return {
    dispatcher,
    scripts,
    python,
    engine,
    runCode(code, opts = {}) {
      const host = createSandboxHost({
        workspace: deps.workspace,
        noModelMessage: opts.noModelMessage ?? 'no model is configured for llm_query',
      });
      return runCodeTemplate(
        sandboxPool(),
        { content: code, metadata: { template: false } },
        {},
        { host, limits: opts.timeout_ms ? { timeout_ms: opts.timeout_ms } : undefined },
      );
    },
    warmSandbox() {
      if (deps.sandbox === false || disposed) return;
      sandboxPool()
        .warmup()
        .catch(() => {});
    },
    async dispose() {
      disposed = true;
      // A shared sidecar belongs to whoever shares it.
      const own = sharedSidecar ? null : sidecar;
      await Promise.allSettled([pool?.close(), own?.dispose()]);
      pool = null;
      sidecar = null;
    },
  };
}
