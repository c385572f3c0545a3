import { describe, expect, it } from 'vitest';
import { createSandboxHost } from './host-functions.js';
import { DEFAULT_LIMITS, MAX_LIMITS, resolveLimits } from './limits.js';

const workspace = {
  search: (q: string, n?: number) => [{ q, n }],
  getPage: (r: string) => ({ slug: r }),
  getPages: (r: string[]) => r,
  getPagesByType: (t: string, n?: number) => [{ t, n }],
  getTags: (r?: string | null) => (r ? ['x'] : [{ tag: 'x', count: 1 }]),
  getReferences: (r: string) => ({ outgoing: [], incoming: [r] }),
  getHistory: (r: string, n?: number) => [{ r, n }],
};

describe('sandbox host functions', () => {
  it('validates arguments and fills Python defaults', async () => {
    const host = createSandboxHost({ workspace });
    expect(await host.call('workspace_search', ['q'])).toEqual([{ q: 'q', n: 10 }]);
    expect(await host.call('get_history', ['p', null])).toEqual([{ r: 'p', n: 20 }]);
    expect(await host.call('get_tags', [])).toEqual([{ tag: 'x', count: 1 }]);
    await expect(host.call('get_page', [42])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(host.call('workspace_search', ['q', 10_000])).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(host.call('get_page', ['a', 'extra'])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('whitelists names, including prototype keys', async () => {
    const host = createSandboxHost({ workspace });
    for (const fn of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'eval']) {
      await expect(host.call(fn, [])).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
  });

  it('without a workspace or a model, says what to pass', async () => {
    const host = createSandboxHost({});
    await expect(host.call('get_page', ['a'])).rejects.toThrow(/--workspace/);
    await expect(host.call('llm_query', ['a'])).rejects.toMatchObject({ code: 'LLM_NOT_CONFIGURED' });
  });

  it('caps LLM calls per run and wraps provider failures', async () => {
    let n = 0;
    const host = createSandboxHost({
      maxLlmCalls: 2,
      llm: {
        complete: async () => {
          n++;
          if (n === 2) throw new Error('boom');
          return { text: 'ok' };
        },
      },
    });
    expect(await host.call('llm_query', ['a'])).toBe('ok');
    await expect(host.call('llm_query', ['a'])).rejects.toMatchObject({ code: 'LLM_FAILED' });
    await expect(host.call('llm_query_batched', [['a', 'b']])).rejects.toMatchObject({
      code: 'SANDBOX_LIMIT',
    });
    expect(host.usage?.().calls).toBe(2);
  });
});

describe('sandbox limits', () => {
  it('merges, validates and clamps', () => {
    expect(resolveLimits()).toEqual(DEFAULT_LIMITS);
    expect(resolveLimits({ timeout_ms: 1e12, memory_mb: 1 }, { output_bytes: 5 })).toMatchObject({
      timeout_ms: MAX_LIMITS.timeout_ms,
      memory_mb: 64,
      output_bytes: 5,
    });
    expect(() => resolveLimits({ timeout_ms: -1 })).toThrow(/timeout_ms/);
    expect(() => resolveLimits({ timeout_ms: 'x' })).toThrow(/timeout_ms/);
    expect(resolveLimits({ unknown: 1 })).toEqual(DEFAULT_LIMITS);
  });
});
