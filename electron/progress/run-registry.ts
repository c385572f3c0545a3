import { AppError } from '../contract/errors.js';

/** One run started through a {@link RunRegistry}: its signal, and `done()` once it has ended. */
export interface TrackedRun {
  signal: AbortSignal;
  done(): void;
}

/**
 * Runs a client named with a `run_id`, so a later request (`skills/cancel-run`, `composer/cancel`,
 * `skills/cancel-eval`) can stop them. One registry per slice: each kept the same map by hand.
 */
export interface RunRegistry {
  /**
   * Start a run: its signal aborts on `cancel(runId)` or when the caller's own signal does (the
   * client went away). A name already running is refused (CONFLICT); no name: not cancellable.
   */
  start(runId: string | undefined, caller?: AbortSignal): TrackedRun;
  /** Stop the run of that name; whether one was running. */
  cancel(runId: string): { cancelled: boolean };
}

export function createRunRegistry(): RunRegistry {
  const running = new Map<string, AbortController>();
  return {
    start(runId, caller) {
      const abort = new AbortController();
      if (runId) {
        if (running.has(runId)) throw new AppError('CONFLICT', `a run named ${runId} is already running`);
        running.set(runId, abort);
      }
      const onCallerGone = () => abort.abort();
      caller?.addEventListener('abort', onCallerGone, { once: true });
      return {
        signal: abort.signal,
        done() {
          caller?.removeEventListener('abort', onCallerGone);
          if (runId && running.get(runId) === abort) running.delete(runId);
        },
      };
    },
    cancel(runId) {
      const abort = running.get(runId);
      abort?.abort();
      return { cancelled: abort !== undefined };
    },
  };
}
