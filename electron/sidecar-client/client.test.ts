// End to end: the real sidecar process (sidecar/.venv) driven by the client, LM calls answered here.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, isAppError } from '../contract/errors.js';
import { skipWithout } from '../test-support/index.js';
import { createSidecarClient, type LmHandler } from './client.js';
import type { OptimizeProgress } from './protocol.js';
import { APP_ROOT, fakeLm, type LmBoundClient, NO_VENV, withLm } from './test-lm.js';

const noSidecar = skipWithout(NO_VENV, 'sidecar client with the real sidecar');

const TRAINING = [
  { word: 'apple', upper: 'APPLE' },
  { word: 'pear', upper: 'PEAR' },
  { word: 'plum', upper: 'PLUM' },
];

/** Secrets the host holds; none may reach the sidecar. */
const HOST_ENV = {
  ...process.env,
  OPENAI_API_KEY: 'sk-test-openai',
  ANTHROPIC_API_KEY: 'sk-ant-test',
  SKILLDESK_SECRET_PROBE: 'probe',
  PYTHONPATH: '/nowhere',
};

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    if (isAppError(e)) return e;
    throw e;
  }
  throw new Error('expected a rejection');
}

/** An LM handler whose behaviour the test can swap between calls. */
function switchableLm(): { lm: LmHandler; set: (h: LmHandler) => void; calls: () => number } {
  let current: LmHandler = fakeLm;
  let calls = 0;
  return {
    lm: (req, ctx) => {
      calls += 1;
      return current(req, ctx);
    },
    set: (h) => {
      current = h;
    },
    calls: () => calls,
  };
}

/** Resolves when the signal aborts (an LM call that never answers on its own). */
const untilAborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) =>
    signal.addEventListener('abort', () => reject(new AppError('CANCELLED', 'aborted')), { once: true }),
  );

describe.skipIf(noSidecar)('sidecar client with the real sidecar', () => {
  const lm = switchableLm();
  let client: LmBoundClient;

  beforeAll(() => {
    client = withLm(createSidecarClient({ appRoot: APP_ROOT, env: HOST_ENV, idleTimeoutMs: 0 }), lm.lm);
  });
  afterAll(async () => {
    await client.dispose();
  });

  it('starts lazily and executes a template, counting usage on the Node side', async () => {
    expect(client.status().state).toBe('stopped');
    const res = await client.execute({
      template_id: 'chain_of_thought',
      signature: 'word -> upper',
      params: { word: 'kiwi' },
    });
    expect(res.outputs).toEqual({ reasoning: 'because kiwi', upper: 'KIWI' });
    expect(res.usage).toEqual({ lm_calls: 1, input_tokens: 10, output_tokens: 5 });
    const status = client.status();
    expect(status.state).toBe('running');
    expect(status.version?.dspy).toMatch(/^3\./);
    // The handshake did not wait for DSPy's import; an answered execute means it is done.
    expect(status.version?.dspy_loaded).toBe(true);
    expect(['venv', 'binary']).toContain(status.command?.kind);
  });

  it('lists the shipped templates', async () => {
    const manifest = await client.manifest();
    expect(manifest.templates.map((t) => t.id)).toEqual(['predict', 'chain_of_thought', 'draft_refine']);
    await client.ping();
  });

  it.skipIf(process.platform !== 'linux')('gives the sidecar no API keys', () => {
    const pid = client.status().pid!;
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    const names = environ.map((kv) => kv.split('=')[0]);
    expect(names).not.toContain('OPENAI_API_KEY');
    expect(names).not.toContain('ANTHROPIC_API_KEY');
    expect(names).not.toContain('SKILLDESK_SECRET_PROBE');
    expect(names).not.toContain('PYTHONPATH');
    expect(environ.join('\n')).not.toMatch(/sk-test|sk-ant/);
    expect(environ).toContain('LITELLM_LOCAL_MODEL_COST_MAP=True');
  });

  it('optimizes with progress and the new state shapes the next prompt', async () => {
    const progress: OptimizeProgress[] = [];
    const res = await client.optimize({
      template_id: 'predict',
      signature: 'word -> upper',
      training_data: TRAINING,
      max_demos: 2,
      evaluate: true,
      onProgress: (p) => progress.push(p),
    });
    expect(res.score).toBe(1);
    expect(res.demos.self).toBeGreaterThanOrEqual(2);
    expect(progress[0]).toEqual({ phase: 'compile', done: 0, total: 3 });
    expect(progress.at(-1)).toEqual({ phase: 'evaluate', done: 3, total: 3 });

    const prompts: string[] = [];
    lm.set(async (req) => {
      prompts.push(req.messages.map((m) => m.content).join('\n'));
      return fakeLm(req);
    });
    const out = await client.execute({
      template_id: 'predict',
      signature: 'word -> upper',
      state_blob: JSON.stringify(res.state_blob),
      params: { word: 'fig' },
    });
    lm.set(fakeLm);
    expect(out.outputs).toEqual({ upper: 'FIG' });
    expect(prompts[0]).toMatch(/apple|pear|plum/);
  });

  it('passes the LM handler’s error code through', async () => {
    lm.set(async () => {
      throw new AppError('LLM_RATE_LIMITED', 'slow down', { retryAfter: 1 });
    });
    const err = await rejection(
      client.execute({ template_id: 'predict', signature: 'a -> b', params: { a: 'x' } }),
    );
    lm.set(fakeLm);
    expect(err.code).toBe('LLM_RATE_LIMITED');
  });

  it('reports bad requests as INVALID_INPUT / NOT_FOUND, not as unavailability', async () => {
    const bad = await rejection(client.execute({ template_id: 'predict', signature: 'a b', params: {} }));
    expect(bad.code).toBe('INVALID_INPUT');
    const missing = await rejection(
      client.execute({ template_id: 'react', signature: 'a -> b', params: { a: 1 } }),
    );
    expect(missing.code).toBe('NOT_FOUND');
  });

  it('cancels a request whose signal aborts, and keeps serving', async () => {
    const controller = new AbortController();
    lm.set(async (_req, ctx) => {
      controller.abort();
      return untilAborted(ctx.signal);
    });
    const err = await rejection(
      client.execute({
        template_id: 'predict',
        signature: 'a -> b',
        params: { a: 'x' },
        signal: controller.signal,
      }),
    );
    lm.set(fakeLm);
    expect(err.code).toBe('CANCELLED');
    const pid = client.status().pid;
    const res = await client.execute({ template_id: 'predict', signature: 'a -> b', params: { a: 'y' } });
    expect(res.outputs).toEqual({ b: 'Y' });
    expect(client.status().pid).toBe(pid);
  });

  it('turns a timeout into SIDECAR_UNAVAILABLE', async () => {
    lm.set(async (_req, ctx) => untilAborted(ctx.signal));
    const err = await rejection(
      client.execute({ template_id: 'predict', signature: 'a -> b', params: { a: 'x' }, timeoutMs: 300 }),
    );
    lm.set(fakeLm);
    expect(err.code).toBe('SIDECAR_UNAVAILABLE');
    expect(err.details?.reason).toBe('timeout');
  });

  it('survives a crash mid-request: unavailable now, restarted by the next request', async () => {
    const before = client.status();
    lm.set(async (_req, ctx) => {
      process.kill(client.status().pid!, 'SIGKILL');
      return untilAborted(ctx.signal);
    });
    const err = await rejection(
      client.execute({ template_id: 'predict', signature: 'a -> b', params: { a: 'x' } }),
    );
    lm.set(fakeLm);
    expect(err.code).toBe('SIDECAR_UNAVAILABLE');
    expect(err.details?.reason).toBe('exited');
    expect(client.status().state).toBe('stopped');

    const res = await client.execute({ template_id: 'predict', signature: 'a -> b', params: { a: 'again' } });
    expect(res.outputs).toEqual({ b: 'AGAIN' });
    const after = client.status();
    expect(after.pid).not.toBe(before.pid);
    expect(after.restarts).toBe(before.restarts + 1);
    expect(after.consecutiveFailures).toBe(0);
  });

  it('stops cleanly and refuses work after dispose', async () => {
    await client.stop();
    expect(client.status().state).toBe('stopped');
    await client.dispose();
    expect(client.status().state).toBe('disposed');
    const err = await rejection(client.manifest());
    expect(err.code).toBe('SIDECAR_UNAVAILABLE');
  });
});

describe('sidecar client without a usable sidecar', () => {
  it('is unavailable when nothing is installed', async () => {
    const client = withLm(createSidecarClient({ command: null }), fakeLm);
    const err = await rejection(
      client.execute({ template_id: 'predict', signature: 'a -> b', params: { a: 1 } }),
    );
    expect(err.code).toBe('SIDECAR_UNAVAILABLE');
    expect(err.details?.reason).toBe('not-installed');
    await client.dispose();
  });

  it('is unavailable when the Python interpreter is absent, and backs off after repeated failures', async () => {
    const client = withLm(
      createSidecarClient({
        command: {
          command: join(APP_ROOT, 'no-such-python'),
          args: ['-m', 'skilldesk_sidecar'],
          kind: 'custom',
        },
        backoffInitialMs: 60_000,
      }),
      fakeLm,
    );
    const first = await rejection(
      client.execute({ template_id: 'predict', signature: 'a -> b', params: { a: 1 } }),
    );
    expect(first.code).toBe('SIDECAR_UNAVAILABLE');
    expect(first.details?.reason).toBe('spawn');
    const second = await rejection(client.manifest());
    expect(second.code).toBe('SIDECAR_UNAVAILABLE');
    const third = await rejection(client.manifest());
    expect(third.details?.reason).toBe('backoff');
    expect(client.status().state).toBe('backoff');
    await client.dispose();
  });

  const systemPython = process.platform === 'win32' ? 'python' : 'python3';
  const hasPythonWithoutDspy =
    spawnSync(systemPython, ['-c', 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)'])
      .status === 0 && spawnSync(systemPython, ['-c', 'import dspy']).status !== 0;

  it.skipIf(!hasPythonWithoutDspy)('is unavailable when Python has no DSPy, and says so', async () => {
    const client = createSidecarClient({
      command: {
        command: systemPython,
        args: ['-m', 'skilldesk_sidecar'],
        cwd: join(APP_ROOT, 'sidecar'),
        kind: 'custom',
      },
    });
    const err = await rejection(client.manifest());
    expect(err.code).toBe('SIDECAR_UNAVAILABLE');
    expect(err.details?.reason).toBe('no-dspy');
    expect(err.message).toMatch(/dspy/i);
    await client.dispose();
  });

  it.skipIf(process.platform === 'win32')('is unavailable when the process exits at once', async () => {
    const client = createSidecarClient({
      command: { command: 'false', args: [], kind: 'custom' },
    });
    const err = await rejection(client.manifest());
    expect(err.code).toBe('SIDECAR_UNAVAILABLE');
    await client.dispose();
  });
});
