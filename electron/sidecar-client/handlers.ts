import type { HandlersFor } from '../contract/channels.js';
import { isAppError } from '../contract/errors.js';
import type { SidecarClient } from './client.js';

/** What the sidecar slice needs. */
export interface SidecarHandlerDeps {
  /** The shared sidecar client (the host's workspace session starts it lazily). */
  session: { sidecar(): SidecarClient };
}

/** The `sidecar/*` slice: whether the DSPy sidecar starts, and what it ships. */
export function createSidecarHandlers(deps: SidecarHandlerDeps) {
  return {
    'sidecar/status': async () => {
      const client = deps.session.sidecar();
      try {
        const version = await client.start();
        await client.ping();
        const s = client.status();
        return { available: true as const, state: s.state, pid: s.pid, command: s.command, version };
      } catch (e) {
        // Unavailable is an outcome (dspy modules then run their fallbacks), not a failed call.
        if (!isAppError(e, 'SIDECAR_UNAVAILABLE')) throw e;
        return { available: false as const, command: client.status().command ?? null, error: e.toData() };
      }
    },
    'sidecar/manifest': () => deps.session.sidecar().manifest(),
  } satisfies HandlersFor<'sidecar'>;
}
