import type { EventHub, EventName, Unsubscribe } from '../contract/channels.js';

export type { EventHub };

/**
 * Create an event hub. A throwing listener is reported to `onListenerError` and does not stop
 * the others (one broken window must not silence the rest).
 */
export function createEventHub(onListenerError: (e: unknown) => void = () => {}): EventHub {
  const listeners = new Map<EventName, Set<(payload: never) => void>>();
  return {
    subscribe(event, cb): Unsubscribe {
      let set = listeners.get(event);
      if (!set) {
        set = new Set();
        listeners.set(event, set);
      }
      const fn = cb as (payload: never) => void;
      set.add(fn);
      return () => {
        set.delete(fn);
      };
    },
    emit(event, payload) {
      for (const cb of [...(listeners.get(event) ?? [])]) {
        try {
          (cb as (p: typeof payload) => void)(payload);
        } catch (e) {
          onListenerError(e);
        }
      }
    },
    clear() {
      listeners.clear();
    },
  };
}
