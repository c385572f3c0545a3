// An LLM skill's run is cancellable wherever it is: waiting for the model, or inside a tool's
// script in the sandbox. `skills/cancel-run` aborts it and the run reports CANCELLED promptly.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { loopbackHost } from '../../test-support/index.js';

const pkg = (script: string, network: string[]) => ({
  name: 'slow-skill',
  description: 'Takes its time.',
  artifacts: [
    {
      kind: 'llm_agent',
      name: 'SKILL.md',
      content: 'Call spin, then answer.',
      metadata: {
        timeout_ms: 60_000,
        network,
        tools: [{ name: 'spin', description: 'Spins.', command: ['python3', 'spin.py'], parameters: [] }],
      },
    },
    { kind: 'resource', name: 'spin.py', content: script, metadata: { path: 'spin.py' } },
  ],
});

async function setup(turns: unknown[], script = 'print(1)\n', network: string[] = []) {
  const { host, provider: p, ctx } = await loopbackHost(turns as never, { model: 'loop' });
  await host.handlers['skills/import-package']({ package: pkg(script, network) }, ctx);
  for (const h of network)
    host.handlers['skill-access/set-grant']({ name: 'slow-skill', host: h, granted: true }, ctx);
  const run = host.handlers['skills/run'](
    { name: 'slow-skill', context: { input: 'go' }, run_id: 'r1' },
    ctx,
  );
  return { p, host, ctx, run: Promise.resolve(run) };
}

describe('cancelling an LLM skill', () => {
  it('while the model has not answered', async () => {
    const { p, host, ctx, run } = await setup([{ hang: true }]);
    await vi.waitFor(() => expect(p.requests.length).toBe(1));
    const t0 = performance.now();
    expect(host.handlers['skills/cancel-run']({ run_id: 'r1' }, ctx)).toEqual({ cancelled: true });
    const r = await run;
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(r.ok).toBe(false);
    expect(r.results[0]!.error?.code).toBe('CANCELLED');
  });

  it('while a tool script runs in the sandbox', async () => {
    // The script tells a local server it is running (through http_request), then spins.
    let told = 0;
    const server = createServer((_req, res) => {
      told++;
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
    const hostport = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { p, host, ctx, run } = await setup(
      [{ tool_calls: [{ name: 'spin', arguments: {} }] }, { text: 'never asked' }],
      `import urllib.request\nurllib.request.urlopen("http://${hostport}/running").read()\nwhile True:\n    pass\n`,
      [hostport],
    );
    await vi.waitFor(() => expect(told).toBe(1), { timeout: 60_000, interval: 50 });
    const t0 = performance.now();
    host.handlers['skills/cancel-run']({ run_id: 'r1' }, ctx);
    const r = await run;
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(r.results[0]!.error?.code).toBe('CANCELLED');
    // The model was not asked again after the cancel.
    expect(p.requests.length).toBe(1);
  }, 120_000);
});
