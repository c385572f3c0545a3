import {
  type ComponentRunResult,
  describeProblems,
  inspectComponentBytes,
  runComponentArtifact,
} from '../../sandbox/index.js';
import type { SkillArtifact } from '../../store/index.js';
import { fail, settle, succeed } from '../result.js';
import { runHostDeps } from '../sandbox-host.js';
import type {
  KindArtifact,
  KindContext,
  KindIssue,
  KindModule,
  SandboxRuntime,
  TraceDraft,
} from '../types.js';

/** Largest component a package may carry (a JavaScript one is ~12 MB, 16 MB as base64). */
export const MAX_COMPONENT_BYTES = 64 * 1024 * 1024;

function decode(artifact: KindArtifact): Buffer {
  return Buffer.from(artifact.content, 'base64');
}

/**
 * `wasm_component`: a WebAssembly component of the `skilldesk:skill` world (`wit/skill.wit`), base64
 * in the package, a `.wasm` file under `components/` in an Agent Skills folder. Checked against
 * the world when a package is validated (an import it is not granted is refused by name),
 * transpiled by jco once per content hash, and run in the sandbox process's component worker with
 * the artifact's variables as `run`'s JSON input.
 */
export const wasmComponentKind: KindModule<'wasm_component'> = {
  kind: 'wasm_component',
  runs_in: 'sandbox',
  validate(artifact) {
    const issues: KindIssue[] = [];
    if (artifact.metadata?.encoding !== 'base64') {
      issues.push({
        path: ['metadata', 'encoding'],
        message:
          'a wasm_component is binary: its content is base64 and its metadata says "encoding": "base64"',
      });
    }
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(artifact.content)) {
      issues.push({ path: ['content'], message: "a wasm_component's content must be base64" });
      return issues;
    }
    if ((artifact.content.length * 3) / 4 > MAX_COMPONENT_BYTES) {
      issues.push({
        path: ['content'],
        message: `a component may be at most ${MAX_COMPONENT_BYTES / 1048576} MB`,
      });
      return issues;
    }
    const { problems } = inspectComponentBytes(new Uint8Array(decode(artifact)));
    if (problems.length > 0)
      issues.push({ path: ['content'], message: `the component ${describeProblems(problems)}` });
    return issues;
  },
  effects(artifact, hostEffects) {
    // A component reaches the app only through the host functions it imports, each named in its
    // type section (the world's kebab-case name of the Python one).
    const bytes = decode(artifact);
    return Object.entries(hostEffects).flatMap(([fn, effects]) =>
      effects.length > 0 && bytes.includes(Buffer.from(fn.replace(/_/g, '-')))
        ? [
            {
              effects,
              why: `component ${artifact.name} imports skilldesk:skill/host.${fn.replace(/_/g, '-')}`,
            },
          ]
        : [],
    );
  },
  agentSkills: {
    path: (a, slug) =>
      typeof a.metadata?.path === 'string'
        ? a.metadata.path
        : `components/${slug(a.name.replace(/\.wasm$/i, ''))}.wasm`,
    // Unreached: `path` always places a component.
    file: (_a, base) => `templates/${base}.wasm-component.txt`,
    reads: { path: /^components\/[^/]+\.wasm$/i, binary: true },
  },
  review(artifact, hostEffects) {
    // Binary: its imports are listed, by the world's kebab-case names, not pattern-matched.
    const bytes = decode(artifact);
    const imports = Object.keys(hostEffects)
      .map((f) => f.replace(/_/g, '-'))
      .filter((f) => bytes.includes(Buffer.from(f)));
    return { imports, binary: true };
  },
  async execute(artifact, ctx, runtimes) {
    const sandbox = runtimes.sandbox;
    if (!sandbox) return fail('HANDLER_NOT_AVAILABLE', 'the sandbox is turned off');
    const ran = await settle(() => runComponent(sandbox, artifact, ctx));
    if (!ran.ok) return { ok: false, error: ran.error, partial: {} };
    const r = ran.value;
    const output = typeof r.result === 'string' ? r.result : null;
    const partial: TraceDraft = {
      rendered_input: r.input,
      raw_output: output ?? (r.stdout || null),
      input_tokens: r.llm.input_tokens,
      output_tokens: r.llm.output_tokens,
      stdout: r.stdout,
      stderr: r.stderr,
    };
    if (!r.ok || output === null) {
      const e = r.error ?? { type: 'ComponentError', message: 'the component returned nothing', code: null };
      return fail(e.code ?? 'SANDBOX_FAILED', `${e.type}: ${e.message}`, partial, { stdout: r.stdout });
    }
    // `ok` is JSON or text: JSON is data (as Python's submit), anything else the text output.
    let data: unknown;
    let isJson = false;
    try {
      data = JSON.parse(output);
      isJson = true;
    } catch {
      isJson = false;
    }
    return succeed({
      text: isJson ? null : output,
      data: isJson ? data : undefined,
      rendered_input: r.input,
      raw_output: output,
      input_tokens: r.llm.calls ? r.llm.input_tokens : null,
      output_tokens: r.llm.calls ? r.llm.output_tokens : null,
      model_id: r.llm.models[0] ?? null,
      stdout: r.stdout,
      stderr: r.stderr,
    });
  },
};

/** One run of a component in the sandbox's component worker, queued per chat like Python runs. */
export function runComponent(
  sandbox: SandboxRuntime,
  artifact: SkillArtifact,
  ctx: KindContext,
): Promise<ComponentRunResult> {
  return runComponentArtifact(sandbox.pool(), sandbox.componentDir, artifact, ctx.variables, {
    hostDeps: runHostDeps(sandbox, ctx),
    queue: ctx.scope.session_id,
    signal: ctx.scope.signal,
  });
}
