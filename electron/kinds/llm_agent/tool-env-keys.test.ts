// `tool_env` attacked by a skill author who read the llm_agent schema and skill-access.ts: a
// tool's environment must never carry a model provider's key, whether the skill names the key's
// variable, asks for it by another spelling, or gets the user to paste the key's value (alone,
// inside a longer value, or before that key was set up).
import { describe, expect, it } from 'vitest';
import { createMemorySecretStore, createSkillAccess } from '../../settings/index.js';
import { tempDir } from '../../test-support/index.js';
import { LlmSkillSchema, PROVIDER_KEY_ENV_NAMES } from './schema.js';

const KEY = 'sk-proj-test-0123456789abcdef';

describe('tool_env and provider keys', () => {
  it('refuses a tool_env that names a provider key, in any case, or maps a variable to one', () => {
    for (const tool_env of [
      ['OPENAI_API_KEY'],
      ['openai_api_key'],
      ['Anthropic_Api_Key'],
      ['GEMINI_API_KEY'],
      ['SAFE', 'DEEPSEEK_API_KEY'],
    ]) {
      const r = LlmSkillSchema.safeParse({ tool_env });
      expect(r.success, tool_env.join()).toBe(false);
      expect(JSON.stringify(r.error?.issues), tool_env.join()).toMatch(/provider keys never reach a tool/);
    }
    // A map that echoes a key by reference is not a tool_env at all.
    for (const tool_env of [
      { X: `${'$'}{OPENAI_API_KEY}` },
      { X: '$ANTHROPIC_API_KEY' },
      [`X=${'$'}{OPENAI_API_KEY}`],
      ['$OPENAI_API_KEY'],
    ])
      expect(LlmSkillSchema.safeParse({ tool_env }).success, JSON.stringify(tool_env)).toBe(false);
    expect(PROVIDER_KEY_ENV_NAMES).toContain('OPENAI_API_KEY');
    expect(LlmSkillSchema.safeParse({ tool_env: ['WEATHER_TOKEN'] }).success).toBe(true);
  });

  it('refuses to store a provider key as a tool secret, alone, quoted, with a prefix or a suffix', () => {
    const access = createSkillAccess({
      home: tempDir(),
      secrets: createMemorySecretStore(),
      env: { OPENAI_API_KEY: KEY },
    });
    for (const value of [
      KEY,
      `${KEY}\n`,
      ` ${KEY} `,
      `"${KEY}"`,
      `Bearer ${KEY}`,
      `${KEY}#x`,
      `token=${KEY}`,
    ]) {
      expect(() => access.setSecret('weather', 'WEATHER_TOKEN', value), value).toThrow(
        /provider keys never reach/,
      );
    }
    expect(() => access.setSecret('weather', 'OPENAI_API_KEY', 'other-value-123')).toThrow(
      /is a model provider's key name/,
    );
    access.setSecret('weather', 'WEATHER_TOKEN', 'wx-own-token-42');
    expect(access.secrets('weather', ['WEATHER_TOKEN'])).toEqual({ WEATHER_TOKEN: 'wx-own-token-42' });
  });

  it('never hands a tool a stored secret that is (or holds) a provider key set up later, nor a provider-named one', () => {
    const home = tempDir();
    const secrets = createMemorySecretStore();
    // Stored while no provider key was known…
    createSkillAccess({ home, secrets, env: {} }).setSecret('weather', 'WEATHER_TOKEN', `Bearer ${KEY}`);
    createSkillAccess({ home, secrets, env: {} }).setSecret('weather', 'OTHER', 'fine-token-77');
    // …and a package changed in the store to name a provider variable, with a value put there directly.
    secrets.set('skill-secret:weather:OPENAI_API_KEY', 'anything-at-all');
    // …then the same key becomes the user's OpenAI key (in the environment or the secret store).
    for (const access of [
      createSkillAccess({ home, secrets, env: { OPENAI_API_KEY: KEY } }),
      (() => {
        secrets.set('openai', KEY);
        return createSkillAccess({ home, secrets, env: {} });
      })(),
    ]) {
      expect(access.secrets('weather', ['WEATHER_TOKEN', 'OTHER', 'OPENAI_API_KEY'])).toEqual({
        OTHER: 'fine-token-77',
      });
    }
  });
});
