/**
 * Long work the main process does, tracked for the app-wide progress area. A task is
 * started by whoever does the work, updated as it goes, and ended once; every change is an event.
 */
import { spawn as nodeSpawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { CallContext, HandlersFor } from '../contract/channels.js';
import type { ProgressKind, ProgressTask } from '../contract/progress.js';
import type { SandboxProcessHandle, SpawnSandboxProcess } from '../sandbox/index.js';

/** Finished tasks stay listed this long, so a window opened just after still sees the outcome. */
const KEEP_FINISHED_MS = 60_000;

/**
 * Where the last sandbox cold start's duration is kept (the host keeps it in the home folder), so
 * the next one can say how long it will take.
 */
export interface ColdStartMemory {
  last(): number | null;
  record(ms: number): void;
}

/**
 * A {@link ColdStartMemory} in a small JSON file (`{"last_ms": 4210}`). A missing or unreadable
 * file means no estimate; a write that fails costs only the next estimate.
 */
export function fileColdStartMemory(path: string): ColdStartMemory {
  let cached: number | null | undefined;
  return {
    last() {
      if (cached !== undefined) return cached;
      try {
        const v = (JSON.parse(readFileSync(path, 'utf8')) as { last_ms?: unknown }).last_ms;
        cached = typeof v === 'number' && Number.isFinite(v) && v > 0 && v < 600_000 ? v : null;
      } catch {
        cached = null;
      }
      return cached;
    },
    record(ms) {
      cached = ms;
      try {
        writeFileSync(path, JSON.stringify({ last_ms: ms }));
      } catch {
        // The home folder may be read-only; the estimate is a nicety.
      }
    },
  };
}

/** A running task, as its owner holds it. */
export interface ProgressHandle {
  readonly id: string;
  update(detail: string | null, fraction?: number | null): void;
  done(detail?: string | null): void;
  fail(detail: string): void;
}

/** The tracker: start tasks, list them, cancel them. */
export interface ProgressTracker {
  start(
    kind: ProgressKind,
    label: string,
    opts?: { cancel?: () => void; detail?: string; estimate_ms?: number },
  ): ProgressHandle;
  list(): ProgressTask[];
  cancel(id: string): boolean;
  handlers: HandlersFor<'progress'>;
}

/** Create a tracker publishing `progress/task-updated` through `emit`. */
export function createProgressTracker(deps: {
  emit(task: ProgressTask): void;
  now?: () => Date;
  clock?: () => number;
}): ProgressTracker {
  const now = deps.now ?? (() => new Date());
  const clock = deps.clock ?? (() => Date.now());
  const tasks = new Map<string, { task: ProgressTask; cancel?: () => void; endedAt: number | null }>();

  const prune = () => {
    const t = clock();
    for (const [id, e] of tasks) if (e.endedAt !== null && t - e.endedAt > KEEP_FINISHED_MS) tasks.delete(id);
  };
  const set = (id: string, patch: Partial<ProgressTask>) => {
    const e = tasks.get(id);
    if (e?.task.state !== 'running') return;
    e.task = { ...e.task, ...patch };
    if (e.task.state !== 'running') {
      e.endedAt = clock();
      e.task.cancellable = false;
    }
    deps.emit(e.task);
  };

  const tracker: ProgressTracker = {
    start(kind, label, opts = {}) {
      prune();
      const id = randomUUID();
      const task: ProgressTask = {
        id,
        kind,
        label,
        state: 'running',
        detail: opts.detail ?? null,
        fraction: null,
        cancellable: opts.cancel !== undefined,
        started_at: now().toISOString(),
        ...(opts.estimate_ms !== undefined ? { estimate_ms: opts.estimate_ms } : {}),
      };
      tasks.set(id, { task, cancel: opts.cancel, endedAt: null });
      deps.emit(task);
      return {
        id,
        update: (detail, fraction = null) => set(id, { detail, fraction }),
        done: (detail = null) => set(id, { state: 'done', detail, fraction: 1 }),
        fail: (detail) => set(id, { state: 'failed', detail }),
      };
    },
    list() {
      prune();
      return [...tasks.values()].map((e) => e.task);
    },
    cancel(id) {
      const e = tasks.get(id);
      if (e?.task.state !== 'running' || !e.cancel) return false;
      const cancel = e.cancel;
      set(id, { state: 'cancelled', detail: 'Cancelled' });
      cancel();
      return true;
    },
    handlers: {
      'progress/list': () => ({ tasks: tracker.list() }),
      'progress/cancel': (req) => ({ cancelled: tracker.cancel(req.id) }),
    },
  };
  return tracker;
}

/**
 * A sandbox spawner that reports each sandbox process's start as a task, from spawn until its
 * first warm Python worker (or its exit); cancelling kills the process, failing the runs waiting
 * on it with the pool's usual error.
 */
export function trackSandboxStarts(
  spawn: SpawnSandboxProcess,
  tracker: ProgressTracker,
  coldStarts?: ColdStartMemory,
): SpawnSandboxProcess {
  return (spec) => {
    const proc: SandboxProcessHandle = spawn(spec);
    const t0 = performance.now();
    const last = coldStarts?.last() ?? null;
    const task = tracker.start('sandbox', 'Starting the Python sandbox', {
      detail:
        last === null
          ? 'Loading Pyodide (a few seconds the first time)'
          : `Loading Pyodide (about ${Math.max(1, Math.round(last / 1000))} s last time)`,
      cancel: () => proc.kill(),
      ...(last === null ? {} : { estimate_ms: last }),
    });
    let seen = '';
    let ready = false;
    proc.onData((chunk) => {
      if (ready) return;
      // The pool's protocol announces each warm worker; only the first matters here.
      seen = (seen + Buffer.from(chunk).toString('latin1')).slice(-4096);
      if (seen.includes('worker-ready')) {
        ready = true;
        coldStarts?.record(Math.round(performance.now() - t0));
        task.done('Ready');
      }
    });
    proc.onExit((code, signal) => {
      if (!ready) task.fail(`The sandbox process stopped before it was ready (${signal ?? `exit ${code}`}).`);
    });
    return proc;
  };
}

/**
 * A `child_process.spawn` for the DSPy sidecar that reports its start as a task, from spawn until
 * its first line on stdout (the handshake, after DSPy has imported); cancelling kills it, and
 * DSPy skills then fall back to their prompt templates as they do when no sidecar is installed.
 */
export function trackSidecarStarts(
  tracker: ProgressTracker,
  spawn: typeof nodeSpawn = nodeSpawn,
): typeof nodeSpawn {
  return ((...args: Parameters<typeof nodeSpawn>) => {
    const child = spawn(...args);
    let ready = false;
    const task = tracker.start('sidecar', 'Starting the DSPy sidecar', {
      detail: 'Importing DSPy (several seconds the first time)',
      cancel: () => child.kill('SIGKILL'),
    });
    child.stdout?.once('data', () => {
      ready = true;
      task.done('Ready');
    });
    child.once('exit', (code, signal) => {
      if (!ready) task.fail(`The sidecar stopped before it was ready (${signal ?? `exit ${code}`}).`);
    });
    child.once('error', (e) => {
      if (!ready) task.fail(`The sidecar could not start: ${e.message}`);
    });
    return child;
  }) as typeof nodeSpawn;
}

/**
 * A handler reported as a task while it runs (imports: one call, often many files). The task
 * ends with `summary` of the reply, or failed with the error's message.
 */
export function withProgress<Req, Res>(
  tracker: ProgressTracker,
  handler: (req: Req, ctx: CallContext) => Res | Promise<Res>,
  kind: ProgressKind,
  label: (req: Req) => string,
  summary: (res: Res) => string,
): (req: Req, ctx: CallContext) => Promise<Res> {
  return async (req, ctx) => {
    const task = tracker.start(kind, label(req));
    try {
      const res = await handler(req, ctx);
      task.done(summary(res));
      return res;
    } catch (e) {
      task.fail(e instanceof Error ? e.message : String(e));
      throw e;
    }
  };
}
