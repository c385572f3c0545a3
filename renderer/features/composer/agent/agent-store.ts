/**
 * The Composer agent and evals in the Composer: "New skill with AI" (describe → rounds
 * of repair → review), refine with a per-artifact diff to accept or reject, and the Evals panel
 * (run with progress and cancel, pass rate per model). State changes are pure `(state, event)`.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ChatModelChoice } from '../../../../electron/contract/chat.js';
import type {
  AppErrorData,
  ComposeRes,
  ComposeRoundView,
  EvalHistoryRes,
  EvalSkillRes,
  OptimizeSkillRes,
  SkillScope,
} from '../../../../electron/contract/index.js';
import type { Client } from '../../../bridge/client.js';

/** A round as the progress list shows it. */
export type RoundItem = ComposeRoundView & { max_rounds: number };

/** One agent run (create or refine). */
export interface AgentRun {
  busy: boolean;
  runId: string | null;
  rounds: RoundItem[];
  result: ComposeRes | null;
  error: AppErrorData | null;
}

/** The evals panel of the open skill. */
export interface EvalsState {
  skill: { name: string; scope: SkillScope } | null;
  busy: boolean;
  runId: string | null;
  progress: { done: number; total: number } | null;
  result: EvalSkillRes | null;
  history: EvalHistoryRes | null;
  error: AppErrorData | null;
  /** `skills/optimize` with the evals: progress, then the validation pass rate before and after. */
  optimize: {
    busy: boolean;
    runId: string | null;
    progress: { phase: string; done: number; total: number } | null;
    result: OptimizeSkillRes['optimized'] | null;
    error: AppErrorData | null;
  };
}

/** Everything the agent panels show. */
export interface AgentState {
  create: AgentRun;
  /**
   * What the user asked "New skill with AI" for: kept here, not in the dialog, so a failed run, a
   * closed dialog or Start over never loses it; cleared once a skill is accepted.
   */
  description: string;
  refine: AgentRun & { base: Record<string, unknown> | null; accepted: Record<string, boolean> };
  evals: EvalsState;
}

/** What changes the state. */
export type AgentEvent =
  | { type: 'run/started'; which: 'create' | 'refine'; runId: string; base?: Record<string, unknown> }
  | { type: 'run/round'; round: RoundItem & { run_id: string } }
  | { type: 'run/finished'; which: 'create' | 'refine'; runId: string; result: ComposeRes }
  | { type: 'run/failed'; which: 'create' | 'refine'; runId: string; error: AppErrorData }
  | { type: 'run/reset'; which: 'create' | 'refine' }
  | { type: 'description/set'; text: string }
  | { type: 'change/toggled'; key: string; accepted: boolean }
  | { type: 'evals/opened'; skill: { name: string; scope: SkillScope } }
  | { type: 'evals/started'; runId: string }
  | { type: 'evals/progressed'; runId: string; done: number; total: number }
  | { type: 'evals/finished'; runId: string; result: EvalSkillRes }
  | { type: 'evals/failed'; runId: string | null; error: AppErrorData }
  | { type: 'evals/history'; history: EvalHistoryRes }
  | { type: 'optimize/started'; runId: string }
  | { type: 'optimize/progressed'; runId: string; phase: string; done: number; total: number }
  | { type: 'optimize/finished'; runId: string; result: OptimizeSkillRes['optimized'] }
  | { type: 'optimize/failed'; runId: string; error: AppErrorData };

const idleRun = (): AgentRun => ({ busy: false, runId: null, rounds: [], result: null, error: null });

/** The state before anything ran. */
export function initialAgentState(): AgentState {
  return {
    create: idleRun(),
    description: '',
    refine: { ...idleRun(), base: null, accepted: {} },
    evals: {
      skill: null,
      busy: false,
      runId: null,
      progress: null,
      result: null,
      history: null,
      error: null,
      optimize: { busy: false, runId: null, progress: null, result: null, error: null },
    },
  };
}

/** Apply one event. Events of a run that is no longer current are ignored. */
export function agentReducer(s: AgentState, e: AgentEvent): AgentState {
  switch (e.type) {
    case 'run/started':
      return e.which === 'create'
        ? { ...s, create: { ...idleRun(), busy: true, runId: e.runId } }
        : { ...s, refine: { ...idleRun(), busy: true, runId: e.runId, base: e.base ?? null, accepted: {} } };
    case 'run/round': {
      const which =
        s.create.runId === e.round.run_id ? 'create' : s.refine.runId === e.round.run_id ? 'refine' : null;
      if (!which) return s;
      const { run_id: _r, ...round } = e.round;
      return { ...s, [which]: { ...s[which], rounds: [...s[which].rounds, round] } };
    }
    case 'run/finished': {
      if (s[e.which].runId !== e.runId) return s;
      if (e.which === 'create')
        return {
          ...s,
          create: {
            ...s.create,
            busy: false,
            result: e.result,
            rounds: e.result.rounds.map(withMax(s.create)),
          },
        };
      // Every change starts accepted; the author unticks what to keep as it was.
      const accepted = Object.fromEntries(e.result.changes.map((c) => [c.key, true]));
      return {
        ...s,
        refine: {
          ...s.refine,
          busy: false,
          result: e.result,
          rounds: e.result.rounds.map(withMax(s.refine)),
          accepted,
        },
      };
    }
    case 'run/failed':
      if (s[e.which].runId !== e.runId) return s;
      return { ...s, [e.which]: { ...s[e.which], busy: false, error: e.error } };
    case 'description/set':
      return { ...s, description: e.text };
    case 'run/reset':
      return e.which === 'create'
        ? { ...s, create: idleRun() }
        : { ...s, refine: { ...idleRun(), base: null, accepted: {} } };
    case 'change/toggled':
      return { ...s, refine: { ...s.refine, accepted: { ...s.refine.accepted, [e.key]: e.accepted } } };
    case 'evals/opened':
      if (s.evals.skill?.name === e.skill.name && s.evals.skill.scope === e.skill.scope) return s;
      return { ...s, evals: { ...initialAgentState().evals, skill: e.skill } };
    case 'evals/started':
      return { ...s, evals: { ...s.evals, busy: true, runId: e.runId, progress: null, error: null } };
    case 'evals/progressed':
      if (s.evals.runId !== e.runId) return s;
      return { ...s, evals: { ...s.evals, progress: { done: e.done, total: e.total } } };
    case 'evals/finished':
      if (s.evals.runId !== e.runId) return s;
      return { ...s, evals: { ...s.evals, busy: false, result: e.result } };
    case 'evals/failed':
      if (e.runId !== null && s.evals.runId !== e.runId) return s;
      return { ...s, evals: { ...s.evals, busy: false, error: e.error } };
    case 'evals/history':
      return { ...s, evals: { ...s.evals, history: e.history } };
    case 'optimize/started':
      return {
        ...s,
        evals: {
          ...s.evals,
          optimize: { busy: true, runId: e.runId, progress: null, result: null, error: null },
        },
      };
    case 'optimize/progressed':
      if (s.evals.optimize.runId !== e.runId) return s;
      return {
        ...s,
        evals: {
          ...s.evals,
          optimize: { ...s.evals.optimize, progress: { phase: e.phase, done: e.done, total: e.total } },
        },
      };
    case 'optimize/finished':
    case 'optimize/failed':
      if (s.evals.optimize.runId !== e.runId) return s;
      return {
        ...s,
        evals: {
          ...s.evals,
          optimize: {
            ...s.evals.optimize,
            busy: false,
            ...(e.type === 'optimize/finished' ? { result: e.result } : { error: e.error }),
          },
        },
      };
  }
}

const withMax =
  (run: AgentRun) =>
  (r: ComposeRoundView): RoundItem => ({
    ...r,
    max_rounds: run.rounds[0]?.max_rounds ?? r.round,
  });

/** The store: state plus actions calling the client. */
export interface AgentStore extends AgentState {
  dispatch(e: AgentEvent): void;
  /** Subscribe to round and eval progress events; returns the unsubscribe. */
  watch(): () => void;
  /** Write a skill from a description, with the chosen model (default: the default provider's). */
  startCreate(description: string, maxRounds?: number, model?: ChatModelChoice): Promise<void>;
  startRefine(draft: Record<string, unknown>, feedback: string, model?: ChatModelChoice): Promise<void>;
  cancel(which: 'create' | 'refine'): Promise<void>;
  /** Merge the accepted changes into the base; resolves with the merged package, or null. */
  applyAccepted(): Promise<Record<string, unknown> | null>;
  openEvals(skill: { name: string; scope: SkillScope }): Promise<void>;
  /**
   * Run the evals of the opened skill, or of `target`: with `draft` (the Composer's package) the
   * draft runs as it is, unsaved, and the run is not remembered.
   */
  runEvals(target?: { name: string; scope: SkillScope; draft?: Record<string, unknown> }): Promise<void>;
  cancelEvals(): Promise<void>;
  /** Optimize a dspy_module on the evals; resolves true when a new version was saved. */
  optimize(
    artifact: string,
    opts?: { optimizer?: 'bootstrap_few_shot' | 'labeled_few_shot'; evaluate?: boolean },
  ): Promise<boolean>;
  cancelOptimize(): Promise<void>;
}

const newRunId = () => `ui-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

/** Create the agent store over a client. */
export function createAgentStore(client: Client): StoreApi<AgentStore> {
  return createStore<AgentStore>()((set, get) => {
    const dispatch = (e: AgentEvent) => set((s) => agentReducer(s, e));
    const run = async (
      which: 'create' | 'refine',
      call: (runId: string) => Promise<ComposeRes>,
      base?: Record<string, unknown>,
    ) => {
      const runId = newRunId();
      dispatch({ type: 'run/started', which, runId, base });
      try {
        dispatch({ type: 'run/finished', which, runId, result: await call(runId) });
      } catch (err) {
        const data = (err as { toData?: () => AppErrorData }).toData?.() ?? {
          code: 'INTERNAL' as const,
          message: String(err),
        };
        dispatch({ type: 'run/failed', which, runId, error: data });
      }
    };
    return {
      ...initialAgentState(),
      dispatch,
      watch() {
        const a = client.subscribe('composer/round-finished', (round) =>
          dispatch({ type: 'run/round', round }),
        );
        const b = client.subscribe('skills/eval-progressed', (p) =>
          dispatch({ type: 'evals/progressed', runId: p.run_id, done: p.done, total: p.total }),
        );
        const c = client.subscribe('skills/optimize-progressed', (p) =>
          dispatch({
            type: 'optimize/progressed',
            runId: p.run_id,
            phase: p.phase,
            done: p.done,
            total: p.total,
          }),
        );
        return () => {
          a();
          b();
          c();
        };
      },
      startCreate: (description, maxRounds, model) =>
        run('create', (run_id) =>
          client.invoke('composer/create', {
            description,
            run_id,
            ...(maxRounds !== undefined ? { max_rounds: maxRounds } : {}),
            ...(model ? { model } : {}),
          }),
        ),
      startRefine: (draft, feedback, model) =>
        run(
          'refine',
          (run_id) =>
            client.invoke('composer/refine', { draft, feedback, run_id, ...(model ? { model } : {}) }),
          draft,
        ),
      async cancel(which) {
        const id = get()[which].runId;
        if (id) await client.call('composer/cancel', { run_id: id });
      },
      async applyAccepted() {
        const { refine } = get();
        if (!refine.base || !refine.result) return null;
        const accept = Object.entries(refine.accepted)
          .filter(([, on]) => on)
          .map(([k]) => k);
        const r = await client.call('composer/apply-changes', {
          base: refine.base,
          proposed: refine.result.draft,
          accept,
        });
        if (!r.ok) {
          dispatch({ type: 'run/failed', which: 'refine', runId: refine.runId ?? '', error: r.error });
          return null;
        }
        dispatch({ type: 'run/reset', which: 'refine' });
        return r.value.draft;
      },
      async openEvals(skill) {
        dispatch({ type: 'evals/opened', skill });
        const h = await client.call('skills/eval-history', { name: skill.name, scope: skill.scope });
        if (h.ok) dispatch({ type: 'evals/history', history: h.value });
      },
      async runEvals(target) {
        const skill = target ? { name: target.name, scope: target.scope } : get().evals.skill;
        if (!skill) return;
        if (target) dispatch({ type: 'evals/opened', skill });
        const runId = newRunId();
        dispatch({ type: 'evals/started', runId });
        const r = await client.call('skills/eval', {
          name: skill.name,
          scope: skill.scope,
          run_id: runId,
          ...(target?.draft ? { draft: target.draft } : {}),
        });
        if (!r.ok) {
          dispatch({ type: 'evals/failed', runId, error: r.error });
          return;
        }
        dispatch({ type: 'evals/finished', runId, result: r.value });
        const h = await client.call('skills/eval-history', { name: skill.name, scope: skill.scope });
        if (h.ok) dispatch({ type: 'evals/history', history: h.value });
      },
      async optimize(artifact, opts = {}) {
        const skill = get().evals.skill;
        if (!skill) return false;
        const runId = newRunId();
        dispatch({ type: 'optimize/started', runId });
        const r = await client.call('skills/optimize', {
          name: skill.name,
          scope: skill.scope,
          artifact,
          evals: true,
          run_id: runId,
          ...opts,
        });
        if (!r.ok) {
          dispatch({ type: 'optimize/failed', runId, error: r.error });
          return false;
        }
        dispatch({ type: 'optimize/finished', runId, result: r.value.optimized });
        const h = await client.call('skills/eval-history', { name: skill.name, scope: skill.scope });
        if (h.ok) dispatch({ type: 'evals/history', history: h.value });
        return true;
      },
      async cancelOptimize() {
        const id = get().evals.optimize.runId;
        if (id) await client.call('skills/cancel-run', { run_id: id });
      },
      async cancelEvals() {
        const id = get().evals.runId;
        if (id) await client.call('skills/cancel-eval', { run_id: id });
      },
    };
  });
}
