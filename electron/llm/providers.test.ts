import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../contract/errors.js';
import { tempDir } from '../test-support/index.js';
import {
  BUILTIN_PRICES,
  envKeySource,
  estimateCost,
  llmConfigFromFlags,
  loadPriceTable,
  PROVIDER_IDS,
  PROVIDERS,
  parseLlmConfig,
  resolveApiKey,
  resolveEndpoint,
  resolveLlmConfig,
} from './index.js';

describe('provider registry and config', () => {
  it('has the six provider ids, each hosted one with a default model, a local server with none', () => {
    expect(PROVIDER_IDS).toEqual(['anthropic', 'openai', 'google', 'xai', 'deepseek', 'openai-compatible']);
    for (const id of PROVIDER_IDS) {
      expect(PROVIDERS[id].id).toBe(id);
      if (id === 'openai-compatible') expect(PROVIDERS[id].defaultModel).toBeNull();
      else expect(PROVIDERS[id].defaultModel).toMatch(/\S/);
    }
  });

  it('refuses to invent a model for a local server', () => {
    expect(() =>
      resolveLlmConfig({ provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1' }),
    ).toThrow(/no model chosen: press Test connection/);
  });

  it('prices every hosted provider’s default model', () => {
    for (const id of PROVIDER_IDS.filter((p) => p !== 'openai-compatible')) {
      const cost = estimateCost(id, PROVIDERS[id].defaultModel!, { input_tokens: 1000, output_tokens: 1000 });
      expect(cost, id).toBeGreaterThan(0);
    }
  });

  it('fills defaults and keeps an explicit base URL', () => {
    expect(resolveLlmConfig({ provider: 'anthropic' })).toEqual({
      provider: 'anthropic',
      model: 'claude-sonnet-4-6',
      baseUrl: 'https://api.anthropic.com/v1',
      keyName: 'anthropic',
    });
    expect(
      resolveLlmConfig({ provider: 'openai', model: 'gpt-4o', baseUrl: 'http://127.0.0.1:9/v1/' }),
    ).toMatchObject({
      model: 'gpt-4o',
      baseUrl: 'http://127.0.0.1:9/v1',
    });
  });

  it('validates configs, naming the field', () => {
    expect(() => parseLlmConfig({ provider: 'openai-compatible' })).toThrow(
      /baseUrl: openai-compatible needs a base URL/,
    );
    expect(() => parseLlmConfig({ provider: 'cohere' })).toThrow(AppError);
    expect(() => parseLlmConfig({ provider: 'openai', baseUrl: 'ftp://x' })).toThrow(/baseUrl/);
    expect(() => parseLlmConfig({ provider: 'openai', apiKey: 'sk-1' })).toThrow(/Unrecognized key/);
    expect(parseLlmConfig({ provider: 'openai-compatible', baseUrl: 'http://localhost:11434/v1' })).toEqual({
      provider: 'openai-compatible',
      baseUrl: 'http://localhost:11434/v1',
    });
  });
});

describe('keys', () => {
  it('reads each provider’s environment variable', () => {
    const env = {
      ANTHROPIC_API_KEY: 'a',
      OPENAI_API_KEY: 'o',
      GOOGLE_GENERATIVE_AI_API_KEY: 'g',
      XAI_API_KEY: 'x',
      DEEPSEEK_API_KEY: 'd',
      OPENAI_COMPATIBLE_API_KEY: 'c',
      MY_KEY: 'm',
    };
    const keys = envKeySource(env);
    expect(PROVIDER_IDS.map((p) => keys.get(p))).toEqual(['a', 'o', 'g', 'x', 'd', 'c']);
    expect(keys.get('MY_KEY')).toBe('m');
    expect(keys.get('not a var')).toBeUndefined();
    expect(envKeySource({ OPENAI_API_KEY: '  ' }).get('openai')).toBeUndefined();
  });

  it('names the variable to set when a key is missing; local endpoints need none', () => {
    const keys = envKeySource({});
    try {
      resolveApiKey(resolveLlmConfig({ provider: 'deepseek' }), keys);
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({
        code: 'LLM_MISSING_KEY',
        details: { provider: 'deepseek', envVar: 'DEEPSEEK_API_KEY' },
      });
      expect((e as Error).message).toBe(
        'No API key for DeepSeek: set the environment variable DEEPSEEK_API_KEY.',
      );
    }
    const custom = resolveLlmConfig({ provider: 'openai', keyName: 'WORK_OPENAI_KEY' });
    expect(() => resolveApiKey(custom, keys)).toThrow(/WORK_OPENAI_KEY/);
    expect(resolveApiKey(custom, envKeySource({ WORK_OPENAI_KEY: 'w' }))).toBe('w');
    const local = resolveEndpoint({ provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:1234/v1' });
    expect(resolveApiKey(local, keys)).toBeUndefined();
    // A keychain-backed source without a hint points at the settings.
    expect(() => resolveApiKey(resolveLlmConfig({ provider: 'google' }), { get: () => undefined })).toThrow(
      'No API key for Google Gemini: add the Google Gemini key in Settings → Providers.',
    );
  });
});

describe('llmConfigFromFlags', () => {
  it('builds a config from flags, falling back to SKILLDESK_* variables', () => {
    expect(llmConfigFromFlags({}, {})).toBeUndefined();
    expect(llmConfigFromFlags({ provider: 'anthropic', model: 'claude-haiku-4-5' }, {})).toEqual({
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
    });
    expect(
      llmConfigFromFlags({}, { SKILLDESK_PROVIDER: 'openai', SKILLDESK_BASE_URL: 'http://127.0.0.1:5/v1' }),
    ).toEqual({ provider: 'openai', baseUrl: 'http://127.0.0.1:5/v1' });
    expect(llmConfigFromFlags({ provider: 'openai', apiKeyEnv: 'ALT_KEY' }, {})).toEqual({
      provider: 'openai',
      keyName: 'ALT_KEY',
    });
  });

  it('reports bad flags as usage errors', () => {
    const usage = (f: () => unknown, re: RegExp) =>
      expect(f).toThrow(expect.objectContaining({ code: 'USAGE', message: expect.stringMatching(re) }));
    usage(() => llmConfigFromFlags({ provider: 'cohere' }, {}), /Unknown provider "cohere"/);
    usage(() => llmConfigFromFlags({ model: 'x' }, {}), /need --provider/);
    usage(() => llmConfigFromFlags({ provider: 'openai-compatible' }, {}), /--base-url/);
    usage(() => llmConfigFromFlags({ provider: 'openai', baseUrl: 'not a url' }, {}), /--base-url/);
    usage(() => llmConfigFromFlags({ provider: 'openai', apiKeyEnv: 'bad-name' }, {}), /--api-key-env/);
  });
});

describe('prices', () => {
  it('estimates cost from USD per million tokens, matching dated model ids', () => {
    const usage = { input_tokens: 2_000_000, output_tokens: 500_000 };
    expect(estimateCost('anthropic', 'claude-sonnet-4-5', usage)).toBe(6 + 7.5);
    expect(estimateCost('anthropic', 'claude-sonnet-4-5-20250929', usage)).toBe(13.5);
    expect(estimateCost('openai', 'gpt-4.1-mini-2025-04-14', usage)).toBeCloseTo(1.6, 10);
    expect(estimateCost('openai', 'gpt-4.1-mini-high', usage)).toBeNull();
    expect(estimateCost('openai-compatible', 'llama3.2', usage)).toBeNull();
    expect(estimateCost('openai', 'gpt-4o', { input_tokens: 0, output_tokens: 0 })).toBe(0);
  });

  it('merges the user’s prices.json over the built-in table', () => {
    const home = tempDir();
    expect(loadPriceTable(home)).toBe(BUILTIN_PRICES);
    writeFileSync(
      join(home, 'prices.json'),
      JSON.stringify({
        'openai-compatible': { 'llama3.2': { input_per_mtok: 0, output_per_mtok: 0 } },
        anthropic: { 'claude-sonnet-4-5': { input_per_mtok: 1, output_per_mtok: 2 } },
      }),
    );
    const table = loadPriceTable(home);
    const usage = { input_tokens: 1_000_000, output_tokens: 1_000_000 };
    expect(estimateCost('openai-compatible', 'llama3.2', usage, table)).toBe(0);
    expect(estimateCost('anthropic', 'claude-sonnet-4-5', usage, table)).toBe(3);
    expect(estimateCost('anthropic', 'claude-haiku-4-5', usage, table)).toBe(6);
    expect(estimateCost('openai', 'gpt-4o', usage, table)).toBe(12.5);
  });

  it('rejects a malformed prices.json, naming the file and path', () => {
    const home = tempDir();
    const file = join(home, 'prices.json');
    writeFileSync(file, JSON.stringify({ openai: { 'gpt-4o': { input_per_mtok: -1, output_per_mtok: 1 } } }));
    expect(() => loadPriceTable(home)).toThrow(
      expect.objectContaining({
        code: 'INVALID_INPUT',
        message: expect.stringContaining(`${file}: $.openai.gpt-4o.input_per_mtok`),
      }),
    );
    writeFileSync(file, JSON.stringify({ cohere: {} }));
    expect(() => loadPriceTable(home)).toThrow(`${file}: $: Unrecognized key: "cohere"`);
    writeFileSync(file, '{');
    expect(() => loadPriceTable(home)).toThrow(/not valid JSON/);
  });
});
