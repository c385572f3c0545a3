/** Test helpers: a real host (temp stores, seeded) behind the in-process transport. */
import { createHost, type Host, type Logger } from '../electron/host.js';
import { tempDir } from '../electron/test-support/index.js';
import { invokeChannel } from '../electron/transport/dispatch.js';
import { type Client, createClient } from './bridge/client.js';
import { createInProcessTransport } from './bridge/in-process-transport.js';

const quiet: Logger = { info: () => {}, error: () => {} };

/** A client over a fresh host; dispose the host at the end of the test. */
export function inProcessClient(opts: { workspace?: boolean } = {}): { client: Client; host: Host } {
  const host = createHost({
    home: tempDir(),
    workspace: opts.workspace ? tempDir() : undefined,
    env: {},
    mode: 'test',
    logger: quiet,
  });
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
