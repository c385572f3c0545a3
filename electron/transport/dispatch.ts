/**
 * The transport edge: every call from any face goes through `invokeChannel`, which validates the
 * request once against the channel's zod schema, runs the handler and wraps the outcome in the
 * result envelope. Unknown errors become INTERNAL; their stack is logged here and never sent.
 */
import type { z } from 'zod';
import {
  type CallContext,
  type Channel,
  EVENT_NAMES,
  type EventName,
  type Handlers,
  type Result,
  requestSchemas,
} from '../contract/channels.js';
import { AppError, type AppErrorData, isAppError } from '../contract/errors.js';
import type { Logger } from '../host.js';
import { namedStorageError } from '../store/index.js';

/** True when `name` is a channel of the contract (own keys only: no `__proto__` tricks). */
export function isChannel(name: unknown): name is Channel {
  return typeof name === 'string' && Object.hasOwn(requestSchemas, name);
}

/** True when `name` is an event of the contract. */
export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && (EVENT_NAMES as readonly string[]).includes(name);
}

/** A zod path as users read it: `package.artifacts[0].kind`. */
export function formatIssuePath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out || '(request)';
}

function invalidRequest(channel: Channel, error: z.ZodError): AppError {
  const issues = error.issues.map((i) => ({ path: formatIssuePath(i.path), message: i.message }));
  const first = issues[0]!;
  return new AppError('INVALID_INPUT', `${channel}: ${first.path}: ${first.message}`, { channel, issues });
}

/** The safe, serialisable form of any thrown value; logs what is not an AppError. */
export function toErrorData(e: unknown, logger: Logger, where: string): AppErrorData {
  if (isAppError(e)) return e.toData();
  // A full disk or a lock held elsewhere is the machine's state, not a bug: say so, whichever
  // write met it (the store layer names the file where it can).
  const storage = namedStorageError(e);
  if (storage) return storage.toData();
  logger.error(`${where} failed`, e);
  return {
    code: 'INTERNAL',
    message: 'Something went wrong inside SkillDesk. The details are in the app log.',
  };
}

/** Validate, run and wrap one call. Never throws. */
export async function invokeChannel(
  handlers: Handlers,
  channel: unknown,
  req: unknown,
  ctx: CallContext,
  logger: Logger,
): Promise<Result<unknown>> {
  if (!isChannel(channel)) {
    const shown = typeof channel === 'string' ? channel.slice(0, 100) : typeof channel;
    return {
      ok: false,
      error: { code: 'INVALID_INPUT', message: `Unknown channel "${shown}".`, details: { channel: shown } },
    };
  }
  const parsed = (requestSchemas[channel] as z.ZodType).safeParse(req ?? {});
  if (!parsed.success) return { ok: false, error: invalidRequest(channel, parsed.error).toData() };
  try {
    const handler = handlers[channel] as (r: unknown, c: CallContext) => unknown;
    const value = await handler(parsed.data, ctx);
    return { ok: true, value };
  } catch (e) {
    return { ok: false, error: toErrorData(e, logger, channel) };
  }
}
