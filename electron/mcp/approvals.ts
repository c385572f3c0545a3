/**
 * Approval before a tool with side effects runs. A call is allowed without asking when the tool is
 * always allowed in this workspace (`tool_approvals`, migration 0011), allowed for this chat, or
 * annotated read-only while the user lets those run; otherwise the broker asks a face (an event
 * with an approval id) and waits for the answer — no answer in time denies.
 */
import { randomUUID } from 'node:crypto';
import type {
  ApprovalDecision,
  ApprovalRequestedEvent,
  ApprovalSettledEvent,
  RememberedApprovalView,
} from '../contract/tools.js';
import type { Db } from '../store/index.js';

/** Remembered approvals and the read-only preference of one store. */
export interface ApprovalStore {
  list(): RememberedApprovalView[];
  has(server: string, tool: string): boolean;
  add(server: string, tool: string): void;
  remove(server: string, tool: string): boolean;
  autoReadOnly(): boolean;
  setAutoReadOnly(on: boolean): void;
}

const AUTO_READ_ONLY = 'auto_read_only';

/** The approvals kept in a store's `agents.db` (per workspace; the account store without one). */
export function sqliteApprovalStore(db: Db): ApprovalStore {
  return {
    list: () =>
      db
        .prepare('SELECT server, tool, created_at FROM tool_approvals ORDER BY server, tool')
        .all() as RememberedApprovalView[],
    has: (server, tool) =>
      db.prepare('SELECT 1 FROM tool_approvals WHERE server = ? AND tool = ?').get(server, tool) !==
      undefined,
    add: (server, tool) => {
      db.prepare(
        'INSERT INTO tool_approvals (server, tool, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
      ).run(server, tool, new Date().toISOString());
    },
    remove: (server, tool) =>
      db.prepare('DELETE FROM tool_approvals WHERE server = ? AND tool = ?').run(server, tool).changes > 0,
    autoReadOnly: () =>
      (
        db.prepare('SELECT value FROM tool_preferences WHERE key = ?').get(AUTO_READ_ONLY) as
          | { value: string }
          | undefined
      )?.value === 'true',
    setAutoReadOnly: (on) => {
      db.prepare(
        'INSERT INTO tool_preferences (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      ).run(AUTO_READ_ONLY, String(on));
    },
  };
}

/** What a call asks approval for (the event less its id and deadline). */
export type ApprovalAsk = Omit<ApprovalRequestedEvent, 'approval_id' | 'expires_at'>;

/** The verdict on one call. */
export interface ApprovalVerdict {
  allowed: boolean;
  /** Why: a standing approval, the user's answer, or the timeout. */
  by: 'remembered' | 'chat' | 'read-only' | 'user' | 'timeout' | 'cancelled';
  decision: ApprovalDecision | null;
}

/** What the broker needs. */
export interface ApprovalBrokerOptions {
  /** The store of the open workspace (read on every request: the workspace may change). */
  store: () => ApprovalStore;
  requested: (e: ApprovalRequestedEvent) => void;
  settled: (e: ApprovalSettledEvent) => void;
  /** How long a request waits for an answer before it denies (default 5 minutes). */
  timeoutMs?: number;
}

interface Pending {
  event: ApprovalRequestedEvent;
  resolve: (v: ApprovalVerdict) => void;
  timer: NodeJS.Timeout;
  cleanup: () => void;
}

/** Asks for approvals and keeps the per-chat ones (in memory: they end with the app). */
export class ApprovalBroker {
  private readonly pendingById = new Map<string, Pending>();
  private readonly perChat = new Map<string, Set<string>>();

  constructor(private readonly opts: ApprovalBrokerOptions) {}

  /** Decide whether a call may run, asking the user when nothing standing allows it. */
  request(ask: ApprovalAsk, signal?: AbortSignal): Promise<ApprovalVerdict> {
    const store = this.opts.store();
    if (store.has(ask.server, ask.server_tool))
      return Promise.resolve({ allowed: true, by: 'remembered', decision: 'always' });
    if (this.perChat.get(ask.session_id)?.has(key(ask.server, ask.server_tool)))
      return Promise.resolve({ allowed: true, by: 'chat', decision: 'chat' });
    if (ask.annotations?.readOnlyHint === true && store.autoReadOnly())
      return Promise.resolve({ allowed: true, by: 'read-only', decision: null });
    if (signal?.aborted) return Promise.resolve({ allowed: false, by: 'cancelled', decision: 'deny' });

    const timeout = this.opts.timeoutMs ?? 300_000;
    const event: ApprovalRequestedEvent = {
      ...ask,
      approval_id: randomUUID(),
      expires_at: new Date(Date.now() + timeout).toISOString(),
    };
    return new Promise<ApprovalVerdict>((resolve) => {
      const onAbort = () => this.settle(event.approval_id, 'deny', 'cancelled');
      signal?.addEventListener('abort', onAbort, { once: true });
      const timer = setTimeout(() => this.settle(event.approval_id, 'deny', 'timeout'), timeout);
      timer.unref?.();
      this.pendingById.set(event.approval_id, {
        event,
        resolve,
        timer,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
      });
      this.opts.requested(event);
    });
  }

  /** Answer a waiting request; false when it is no longer waiting (answered elsewhere, expired). */
  answer(approvalId: string, decision: ApprovalDecision): boolean {
    return this.settle(approvalId, decision, 'user');
  }

  /** The requests waiting for an answer (a window opened later shows them too). */
  pending(): ApprovalRequestedEvent[] {
    return [...this.pendingById.values()].map((p) => p.event);
  }

  /** Forget a chat's approvals (when it is deleted). */
  forgetChat(sessionId: string): void {
    this.perChat.delete(sessionId);
  }

  /** Deny everything still waiting (shutdown). */
  denyAll(): void {
    for (const id of [...this.pendingById.keys()]) this.settle(id, 'deny', 'cancelled');
  }

  private settle(id: string, decision: ApprovalDecision, by: ApprovalSettledEvent['by']): boolean {
    const p = this.pendingById.get(id);
    if (!p) return false;
    this.pendingById.delete(id);
    clearTimeout(p.timer);
    p.cleanup();
    const { event } = p;
    if (decision === 'always') this.opts.store().add(event.server, event.server_tool);
    if (decision === 'chat') {
      const set = this.perChat.get(event.session_id) ?? new Set<string>();
      set.add(key(event.server, event.server_tool));
      this.perChat.set(event.session_id, set);
    }
    this.opts.settled({ approval_id: id, session_id: event.session_id, decision, by });
    p.resolve({ allowed: decision !== 'deny', by: by === 'user' ? 'user' : by, decision });
    return true;
  }
}

function key(server: string, tool: string): string {
  return `${server}\0${tool}`;
}
