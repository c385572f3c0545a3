/**
 * The typed API between the renderer (or any client) and the main process.
 *
 * To add a capability slice (chat, traces, settings …):
 * 1. write `contract/<capability>.ts` exporting `XxxChannels` (channel → {req, res}), the request
 *    schemas `xxxRequestSchemas` keyed the same way and, for streams, `XxxEvents`;
 * 2. intersect them into `Channels` / `Events` and spread the schemas into `requestSchemas` below;
 * 3. write the handler slice (`satisfies HandlersFor<'xxx'>`) and spread it in `createHost`.
 * `tsc` then fails until every channel has a schema and a handler.
 */
import type { z } from 'zod';
import {
  type AppChannels,
  type AppWindowChannels,
  appRequestSchemas,
  appWindowRequestSchemas,
} from './app.js';
import { type AttachmentsChannels, attachmentsRequestSchemas } from './attachments.js';
import { type BuiltinToolChannels, builtinToolRequestSchemas } from './builtin-tools.js';
import { type ChatChannels, type ChatEvents, chatRequestSchemas } from './chat.js';
import { type ChatFilesChannels, chatFilesRequestSchemas } from './chat-files.js';
import { type CodeChannels, codeRequestSchemas } from './code.js';
import { type ComposerChannels, type ComposerEvents, composerRequestSchemas } from './composer.js';
import type { AppErrorData } from './errors.js';
import { type EvalChannels, type EvalEvents, evalRequestSchemas } from './evals.js';
import { type ProgressChannels, type ProgressEvents, progressRequestSchemas } from './progress.js';
import { type PythonChannels, pythonRequestSchemas } from './python.js';
import { type SettingsChannels, type SettingsEvents, settingsRequestSchemas } from './settings.js';
import { type SidecarChannels, sidecarRequestSchemas } from './sidecar.js';
import { type SkillAccessChannels, skillAccessRequestSchemas } from './skill-access.js';
import {
  type SkillFilesChannels,
  type SkillsChannels,
  type SkillsEvents,
  skillFilesRequestSchemas,
  skillsRequestSchemas,
} from './skills.js';
import { type SourcesChannels, type SourcesEvents, sourcesRequestSchemas } from './sources.js';
import { type ToolsChannels, type ToolsEvents, toolsRequestSchemas } from './tools.js';
import { type TracesChannels, tracesRequestSchemas } from './traces.js';
import { type WorkspaceChannels, type WorkspaceEvents, workspaceRequestSchemas } from './workspace.js';

/** Every request/response channel: `'capability/verb-noun': { req; res }`. */
export type Channels = SkillsChannels &
  SkillFilesChannels &
  BuiltinToolChannels &
  AppChannels &
  AppWindowChannels &
  ChatChannels &
  ChatFilesChannels &
  PythonChannels &
  AttachmentsChannels &
  TracesChannels &
  SettingsChannels &
  CodeChannels &
  SidecarChannels &
  ComposerChannels &
  EvalChannels &
  ToolsChannels &
  WorkspaceChannels &
  ProgressChannels &
  SkillAccessChannels &
  SourcesChannels;
/** A channel name. */
export type Channel = keyof Channels;
/** The request object of a channel (one JSON-serialisable argument). */
export type Req<C extends Channel> = Channels[C]['req'];
/** The reply value of a channel. */
export type Res<C extends Channel> = Channels[C]['res'];

/** Every event the main process pushes: `'capability/noun-past': payload`. */
export type Events = SkillsEvents &
  ChatEvents &
  SettingsEvents &
  ComposerEvents &
  EvalEvents &
  ToolsEvents &
  WorkspaceEvents &
  ProgressEvents &
  SourcesEvents;
/** An event name. */
export type EventName = keyof Events;
/** The payload of an event. */
export type EventPayload<E extends EventName> = Events[E];

/** The event names, for validating subscriptions at the transport edge. */
export const EVENT_NAMES = [
  'skills/catalog-changed',
  'skills/artifact-ran',
  'skills/optimize-progressed',
  'chat/turn-started',
  'chat/delta-received',
  'chat/tool-call-started',
  'chat/tool-call-finished',
  'chat/turn-finished',
  'chat/sessions-changed',
  'settings/changed',
  'composer/round-finished',
  'skills/eval-progressed',
  'skills/embed-progressed',

  'tools/approval-requested',
  'tools/approval-settled',
  'tools/call-progressed',
  'tools/server-status-changed',

  'workspace/changed',
  'progress/task-updated',
  'sources/checked',
] as const satisfies readonly EventName[];
// Fails to compile when an event is added to `Events` but not to EVENT_NAMES.
const _allEventsListed: Exclude<EventName, (typeof EVENT_NAMES)[number]> extends never ? true : never = true;
void _allEventsListed;

/** The reply envelope every call crosses as. Errors carry `{code, message, details?}`, no stack. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: AppErrorData };

/** One zod schema per channel, validating the request exactly once at the transport edge. */
export type RequestSchemas = { [C in Channel]: z.ZodType<Req<C>> };

/** The request schemas of every channel. */
export const requestSchemas = {
  ...skillsRequestSchemas,
  ...skillFilesRequestSchemas,
  ...builtinToolRequestSchemas,
  ...appRequestSchemas,
  ...appWindowRequestSchemas,
  ...chatRequestSchemas,
  ...chatFilesRequestSchemas,
  ...pythonRequestSchemas,
  ...attachmentsRequestSchemas,
  ...tracesRequestSchemas,
  ...settingsRequestSchemas,
  ...codeRequestSchemas,
  ...sidecarRequestSchemas,
  ...composerRequestSchemas,
  ...evalRequestSchemas,
  ...toolsRequestSchemas,
  ...workspaceRequestSchemas,
  ...progressRequestSchemas,
  ...sourcesRequestSchemas,
  ...skillAccessRequestSchemas,
} satisfies RequestSchemas;

/** Every channel name (from the schema table, which `satisfies` keeps complete). */
export const CHANNELS = Object.keys(requestSchemas) as Channel[];

/** What a handler learns about its caller. */
export interface CallContext {
  /** Which face the call came through. */
  transport: 'ipc' | 'ws' | 'in-process';
  /** Aborted when the caller goes away (a closed window, Ctrl-C in the CLI). */
  signal?: AbortSignal;
}

/** The implementation of one channel; it receives the request already validated. */
export type Handler<C extends Channel> = (req: Req<C>, ctx: CallContext) => Res<C> | Promise<Res<C>>;

/** The channels whose names start with `prefix/`. */
export type ChannelsOf<P extends string> = Extract<Channel, `${P}/${string}`>;

/** A capability's handler slice: exactly one handler per channel of the prefix. */
export type HandlersFor<P extends string> = { [C in ChannelsOf<P>]: Handler<C> };

/** The full handler table the host builds. A missing handler is a compile error. */
export type Handlers = { [C in Channel]: Handler<C> };

/** Stop receiving an event. */
export type Unsubscribe = () => void;

/** Where events are published in the main process and subscribed to by transports. */
export interface EventSource {
  subscribe<E extends EventName>(event: E, cb: (payload: EventPayload<E>) => void): Unsubscribe;
}

/** An in-process event bus: handler slices emit, transports subscribe. */
export interface EventHub extends EventSource {
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  /** Drop every listener. */
  clear(): void;
}

/** What the renderer's client speaks, whichever transport carries it (IPC, WebSocket, in-process). */
export interface SkillDeskApi {
  /** Call a channel; resolves with the envelope, never rejects for an app error. */
  invoke<C extends Channel>(channel: C, req: Req<C>): Promise<Result<Res<C>>>;
  /** Listen to an event; returns the function that stops listening. */
  subscribe<E extends EventName>(event: E, cb: (payload: EventPayload<E>) => void): Unsubscribe;
}
