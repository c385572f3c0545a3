/**
 * The `progress/*` slice of the API contract: long work the main process does — the
 * sandbox warming up, the DSPy sidecar starting, skills importing, workspace pages indexing —
 * reported as it goes, for the app-wide progress area, with cancel where it makes sense.
 */
import { z } from 'zod';

/** What kind of long work a task is. */
export type ProgressKind = 'sandbox' | 'sidecar' | 'import' | 'pages' | 'python';

/** One long task, as last reported. */
export interface ProgressTask {
  id: string;
  kind: ProgressKind;
  /** What is happening, in words ("Starting the Python sandbox"). */
  label: string;
  state: 'running' | 'done' | 'failed' | 'cancelled';
  /** More detail, or the result ("12 pages"), or why it failed. */
  detail: string | null;
  /** 0..1 when known. */
  fraction: number | null;
  /** True when `progress/cancel` can stop it. */
  cancellable: boolean;
  started_at: string;
  /** How long the same work took when it last ran to the end, when known (an estimate to show). */
  estimate_ms?: number;
}

/** `progress/list`: tasks running now and those finished in the last minute. */
export const ListProgressReqSchema = z.object({}).strict();
/** Request of `progress/list`. */
export type ListProgressReq = z.infer<typeof ListProgressReqSchema>;
/** Reply of `progress/list`. */
export interface ListProgressRes {
  tasks: ProgressTask[];
}

/** `progress/cancel`: stop a cancellable task. */
export const CancelProgressReqSchema = z.object({ id: z.string().min(1).max(100) }).strict();
/** Request of `progress/cancel`. */
export type CancelProgressReq = z.infer<typeof CancelProgressReqSchema>;
/** Reply of `progress/cancel`: false when the task had already ended. */
export interface CancelProgressRes {
  cancelled: boolean;
}

/** The `progress/*` channels. */
export interface ProgressChannels {
  'progress/list': { req: ListProgressReq; res: ListProgressRes };
  'progress/cancel': { req: CancelProgressReq; res: CancelProgressRes };
}

/** The `progress/*` events. */
export interface ProgressEvents {
  'progress/task-updated': ProgressTask;
}

/** Request schemas of the `progress/*` channels. */
export const progressRequestSchemas = {
  'progress/list': ListProgressReqSchema,
  'progress/cancel': CancelProgressReqSchema,
};
