/** Test helpers: a real host (temp stores, seeded) behind the in-process transport. */
import type { Host } from '../electron/host.js';
import { quietLogger as quiet, tempDir, testHost } from '../electron/test-support/index.js';
import { invokeChannel } from '../electron/transport/dispatch.js';
import { type Client, createClient } from './bridge/client.js';
import { createInProcessTransport } from './bridge/in-process-transport.js';

/** A client over a fresh host, disposed after the test. */
export function inProcessClient(opts: { workspace?: boolean } = {}): { client: Client; host: Host } {
  const host = testHost({ workspace: opts.workspace ? tempDir() : undefined });
  const transport = createInProcessTransport(
    (channel, req) => invokeChannel(host.handlers, channel, req, { transport: 'in-process' }, quiet),
    host.events,
  );
  return { client: createClient(transport), host };
}

/** A minimal valid package. */
export function samplePackage(over: Record<string, unknown> = {}) {
  return {
    name: 'Haiku Helper',
    description: 'Writes haiku about any topic.',
    version: '1.0.0',
    tags: ['poetry'],
    trigger_phrases: ['write a haiku'],
    artifacts: [{ kind: 'prompt_template', name: 'Poem', content: 'Write a haiku about {{ topic }}.' }],
    ...over,
  };
}
