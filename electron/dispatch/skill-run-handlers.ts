/**
 * The `skills/*` channels that execute something: render and validate templates, run a skill's
 * artifacts through the dispatcher, and optimize a `dspy_module` in the sidecar. The eval slice
 * (`evals/`) is built here over `skills/run`, since optimizing with evals runs its validation
 * evals before and after; evals reach the dispatcher only through that callback and the turn.
 */

import { randomUUID } from 'node:crypto';
import type { EventHub, HandlersFor } from '../contract/channels.js';
import { AppError } from '../contract/errors.js';
import type { ArtifactRunView, OptimizeSkillRes } from '../contract/skills.js';
import {
  createSkillEvals,
  type EvalTurnInput,
  type EvalTurnOutput,
  evalsSplit,
  nextPatchVersion,
} from '../evals/index.js';
import type { Llm } from '../llm/index.js';
import { createRunRegistry } from '../progress/index.js';
import { parseDspyModuleContent, type SidecarClient } from '../sidecar-client/index.js';
import {
  type CatalogRef,
  type ImportLimits,
  packageToRows,
  packageWarnings,
  parsePackageInput,
  readSkillEvals,
  resolveOrThrow,
  type SkillCatalog,
  type SkillPackage,
  savePackage,
  skillToPackage,
} from '../skills/index.js';
// Directly the pin module, not the sources index (which reads the tool registry).
import { assertPinned } from '../sources/index.js';
import type { Scope, Skill, SkillArtifact, SkillStore } from '../store/index.js';
import { checkTemplate, PromptEngine } from '../templates/index.js';
import type { ArtifactDispatcher } from './dispatcher.js';
import { createRunScope } from './run-scope.js';
import type { ScriptRunners } from './runtime.js';
import { type SkillRuntime, sidecarLm } from './runtime.js';
import type { DispatchResult } from './types.js';

/**
 * Runs an eval's prompt through the chat's turn (implemented by the chat, which sits above this
 * layer; the host hands it down).
 */
export type EvalTurnRunner = (
  deps: { catalog: SkillCatalog; dispatcher: ArtifactDispatcher; runners: ScriptRunners; workspace?: string },
  input: EvalTurnInput,
) => Promise<EvalTurnOutput>;

/** The part of an open workspace session that runs skills. */
export interface SkillRunSession {
  workspace: string | undefined;
  catalog: CatalogRef;
  /** The skill runtime whose traces go to `store`. */
  runtime(store: SkillStore): SkillRuntime;
  sidecar(): SidecarClient;
}

/** What the run slice needs. */
export interface SkillRunHandlerDeps {
  session: SkillRunSession;
  events: EventHub;
  limits: ImportLimits;
  /** The model of the next run, or null when none is configured. */
  llm: () => Llm | null;
  /** Monotonic milliseconds. */
  now: () => number;
  /** The chat's turn, for output evals to run the model with (and without) the skill. */
  evalTurn?: EvalTurnRunner;
}

type RunChannels =
  | 'skills/render'
  | 'skills/validate'
  | 'skills/run'
  | 'skills/cancel-run'
  | 'skills/optimize';

/** One artifact execution as the contract reports it. */
export function toArtifactRunView(r: DispatchResult): ArtifactRunView {
  return {
    artifact: r.artifact.name,
    kind: r.artifact.kind,
    model_variant: r.artifact.model_variant,
    ok: r.ok,
    text: r.output?.text ?? null,
    data: r.output?.data ?? null,
    injected: r.output?.injected ?? false,
    fallback: r.output?.fallback ?? null,
    stdout: r.output?.stdout ?? null,
    error: r.error,
    assertions: r.assertions,
    trace_id: r.trace_id,
    duration_ms: r.duration_ms,
    input_tokens: r.output?.input_tokens ?? null,
    output_tokens: r.output?.output_tokens ?? null,
    model_id: r.output?.model_id ?? null,
    estimated_cost: r.output?.estimated_cost ?? null,
  };
}

/**
 * The skill a draft package stands for, to run without saving it: the stored skill of that name
 * lends its id (traces of the draft list under the skill) and the state blobs the editor does not
 * carry (an optimized program stays optimized); an unsaved skill runs under the scope it would be
 * saved to.
 */
export function draftSkill(
  catalog: SkillCatalog,
  name: string,
  scope: Scope | undefined,
  pkg: SkillPackage,
): { skill: Skill; scope: Scope } {
  if (pkg.name !== name) {
    throw new AppError(
      'INVALID_INPUT',
      `the draft is named "${pkg.name}", not "${name}": send its own name`,
      {
        issues: [{ path: 'name', message: `must be "${name}"` }],
      },
    );
  }
  const found = catalog.resolve(name, scope);
  const where: Scope = found?.scope ?? scope ?? (catalog.workspace ? 'workspace' : 'account');
  if (!catalog.store(where)) {
    throw new AppError('INVALID_INPUT', 'No workspace is open: run the draft in the account scope', {
      scope: where,
    });
  }
  const rows = packageToRows(pkg, found?.skill.id);
  const now = new Date().toISOString();
  const saved = found?.skill.artifacts ?? [];
  const artifacts: SkillArtifact[] = rows.artifacts.map((a) => {
    const same = saved.find(
      (b) => b.kind === a.kind && b.name === a.name && b.model_variant === a.model_variant,
    );
    return {
      ...a,
      id: same?.id ?? a.id,
      state_blob: a.state_blob ?? same?.state_blob ?? null,
      created_at: now,
      updated_at: now,
    };
  });
  const skill: Skill = {
    ...rows.skill,
    artifact_kinds: [...new Set(artifacts.map((a) => a.kind))],
    created_at: found?.skill.created_at ?? now,
    updated_at: now,
    artifacts,
  };
  return { skill, scope: where };
}

/** Build the run slice. Runs given a `run_id` can be cancelled with `skills/cancel-run`. */
export function createSkillRunHandlers(deps: SkillRunHandlerDeps) {
  const { session, events } = deps;
  const engine = new PromptEngine();
  /** A run's abort signal: cancelled by `skills/cancel-run` or when the caller goes away. */
  const runs = createRunRegistry();
  const track = (runId: string | undefined, caller?: AbortSignal) => runs.start(runId, caller);

  const evals = createSkillEvals({
    catalog: () => session.catalog.get(),
    run: async (req, ctx) => handlers['skills/run'](req, ctx),
    llm: deps.llm,
    turn:
      deps.evalTurn &&
      ((input) => {
        const open = session.catalog.get();
        // A draft's turn reads skills from the draft's in-memory catalog, but runs artifacts with
        // the open store's runtime (its sandbox pool), as the Composer's draft run does.
        const catalog = input.catalog ?? open;
        const store = open.store(input.skill.scope);
        if (!store) throw new AppError('NOT_FOUND', `the ${input.skill.scope} store is no longer open`);
        const runtime = session.runtime(store);
        return deps.evalTurn!(
          { catalog, dispatcher: runtime.dispatcher, runners: runtime, workspace: session.workspace },
          input,
        );
      }),
    now: deps.now,
    events,
    draft: (catalog, name, scope, input) =>
      draftSkill(catalog, name, scope, parsePackageInput(input, 'draft', deps.limits)),
  });
  const handlers = {
    'skills/render': (req) => ({
      rendered: engine.renderStr(req.source, req.context ?? {}, {
        name: req.name,
        undefined: req.undefined ?? 'semi_strict',
        maxOutputBytes: req.max_output_bytes,
      }),
    }),

    'skills/validate': async (req) => {
      if (req.kind === 'template') {
        // A large template is parsed on a worker thread: the server keeps answering meanwhile.
        const r = await checkTemplate(engine, req.source, req.name);
        if (r.ok) return { ok: true, variables: r.variables ?? [] };
        return {
          ok: false,
          message: r.message,
          ...(r.line != null ? { line: r.line } : {}),
          ...(r.column != null ? { column: r.column } : {}),
          issues: [{ path: req.name ?? 'template', message: r.message }],
        };
      }
      try {
        const pkg = parsePackageInput(req.package, req.file_name ?? 'package.json', deps.limits);
        // What does not block a save is still said.
        const warnings = packageWarnings(pkg);
        return warnings.length > 0 ? { ok: true, warnings } : { ok: true };
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        const issues = (e.details?.issues as Array<{ path: string; message: string }> | undefined) ?? [];
        return { ok: false, message: e.message, issues };
      }
    },

    'skills/run': async (req, ctx) => {
      const catalog = session.catalog.get();
      const { skill, scope } = req.package
        ? draftSkill(catalog, req.name, req.scope, parsePackageInput(req.package, 'draft', deps.limits))
        : resolveOrThrow(catalog, req.name, req.scope);
      const store = catalog.store(scope)!;
      // A stored skill from a source runs only as it was accepted: this one entry point serves
      // `run-skill`, the Composer's run of a saved skill and evals, none of which can ask first. A
      // draft is what the user has in front of them in the Composer, so it is not held to the pin.
      if (!req.package) assertPinned(store, skill, scope);
      const runtime = session.runtime(store);
      const sessionId = req.session_id ?? `cli-${randomUUID()}`;
      const run = track(req.run_id, ctx.signal);
      const runId = req.run_id;
      const runScope = createRunScope({
        session_id: sessionId,
        workspace: session.workspace,
        llm: deps.llm(),
        signal: run.signal,
        trace: runId
          ? (r) => events.emit('skills/artifact-ran', { run_id: runId, result: toArtifactRunView(r) })
          : undefined,
      });
      try {
        const results = await runtime.dispatcher.runSkill(runScope, {
          skill: { id: skill.id, name: skill.name, scope, version: skill.version },
          artifacts: skill.artifacts,
          variables: req.context ?? {},
          artifact: req.artifact,
        });
        return {
          skill: skill.name,
          scope,
          version: skill.version,
          session_id: sessionId,
          ran: req.package ? ('draft' as const) : ('saved' as const),
          ok: results.every((r) => r.ok),
          results: results.map(toArtifactRunView),
        };
      } finally {
        run.done();
      }
    },

    'skills/cancel-run': (req) => runs.cancel(req.run_id),

    'skills/optimize': async (req, ctx) => {
      const llm = deps.llm();
      const optimizer = req.optimizer ?? 'bootstrap_few_shot';
      if (!llm && optimizer !== 'labeled_few_shot') {
        throw new AppError(
          'LLM_NOT_CONFIGURED',
          'optimizing calls the model: pass --provider and --model (or use --optimizer labeled_few_shot, which needs none)',
        );
      }
      const catalog = session.catalog.get();
      const found = resolveOrThrow(catalog, req.name, req.scope);
      const artifact = found.skill.artifacts.find((a) => a.name === req.artifact && a.kind === 'dspy_module');
      if (!artifact) {
        throw new AppError(
          'NOT_FOUND',
          `skill "${found.skill.name}" has no dspy_module named "${req.artifact}"`,
          {
            name: found.skill.name,
            artifact: req.artifact,
          },
        );
      }
      const content = parseDspyModuleContent(artifact.content, `${found.skill.name} / ${artifact.name}`);
      // With `evals`, the skill's output evals are the train/validation split.
      const split = req.evals ? evalsSplit(readSkillEvals(found.skill), content.signature) : null;
      const trainingData = split ? split.train : (req.training_data ?? []);
      const started = deps.now();
      const run = track(req.run_id, ctx.signal);
      const validate = (origin: 'optimize_before' | 'optimize_after') =>
        evals.evaluate(
          { name: found.skill.name, scope: found.scope, only: 'output' },
          { ...ctx, signal: run.signal },
          { ids: split!.validation_ids, origin, direct: true },
        );
      try {
        const before = split ? await validate('optimize_before') : null;
        const r = await session.sidecar().optimize({
          template_id: content.template_id,
          signature: content.signature,
          training_data: trainingData,
          metric: req.metric ?? (split ? 'contains' : 'exact_match'),
          optimizer,
          max_demos: req.max_demos ?? 4,
          evaluate: (req.evaluate ?? true) && llm !== null,
          state_blob: artifact.state_blob
            ? JSON.parse(Buffer.from(artifact.state_blob).toString('utf8'))
            : null,
          lm: sidecarLm(llm),
          signal: run.signal,
          onProgress: (p) => {
            if (req.run_id) events.emit('skills/optimize-progressed', { run_id: req.run_id, ...p });
          },
        });
        // The catalog may have been reopened while the sidecar worked.
        const store = session.catalog.get().store(found.scope)!;
        const blob = Buffer.from(JSON.stringify(r.state_blob), 'utf8');
        let evalsReport: NonNullable<OptimizeSkillRes['optimized']['evals']> | undefined;
        if (split && before) {
          // Saved as a new version (the one it replaces is kept), then the validation evals again.
          const current = store.repo.getSkill(found.skill.id) ?? found.skill;
          const pkg = skillToPackage(current);
          const version = nextPatchVersion(current.version);
          savePackage(
            store,
            {
              ...pkg,
              version,
              artifacts: pkg.artifacts.map((a) =>
                a.name === artifact.name && a.kind === 'dspy_module'
                  ? { ...a, state_blob: blob.toString('base64') }
                  : a,
              ),
            },
            {
              note: `before optimizing ${artifact.name} with its evals (validation pass rate ${before.pass_rate})`,
            },
          );
          events.emit('skills/catalog-changed', { reason: 'saved', names: [found.skill.name] });
          const after = await validate('optimize_after');
          const rate = (x: typeof before) => ({ passed: x.passed, total: x.total, pass_rate: x.pass_rate });
          evalsReport = {
            train: split.train.length,
            validation: split.validation.length,
            before: rate(before),
            after: rate(after),
            version,
            previous_version: current.version,
          };
        } else {
          store.repo.updateArtifact({ ...artifact, state_blob: blob });
        }
        return {
          optimized: {
            ...(evalsReport ? { evals: evalsReport } : {}),
            name: found.skill.name,
            scope: found.scope,
            artifact: artifact.name,
            examples: trainingData.length,
            demos: r.demos,
            score: r.score ?? null,
            lm_calls: r.usage.lm_calls,
            input_tokens: r.usage.input_tokens,
            output_tokens: r.usage.output_tokens,
            warnings: r.warnings,
            took_ms: Math.round(deps.now() - started),
          },
        };
      } finally {
        run.done();
      }
    },
  } satisfies Pick<HandlersFor<'skills'>, RunChannels>;
  return { ...handlers, ...evals.handlers };
}
