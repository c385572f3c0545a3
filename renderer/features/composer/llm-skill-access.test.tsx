// @vitest-environment jsdom
// The LLM skill's access panel over a real host: switching a declared host on grants it (and off
// revokes it), a secret typed for a tool_env name is stored but never shown, and a provider key
// as a value is refused with the reason.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createStores, StoresProvider } from '../../stores.js';
import { inProcessClient } from '../../test-support.js';
import { LlmSkillAccess } from './LlmSkillAccess.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

const pkg = {
  name: 'weather-bot',
  description: 'Weather for a city.',
  artifacts: [
    {
      kind: 'llm_agent',
      name: 'SKILL.md',
      content: 'Answer with the weather.',
      metadata: {
        network: ['api.weather.example'],
        tool_env: ['WEATHER_API_KEY'],
        tools: [
          {
            name: 'weather',
            description: 'Weather for a city.',
            command: ['python3', 'weather.py'],
            parameters: [{ name: 'city', description: 'City', required: true }],
          },
        ],
      },
    },
    { kind: 'resource', name: 'weather.py', content: 'print(1)', metadata: { path: 'weather.py' } },
  ],
};

async function mount(skill: string | null) {
  const { client, host } = inProcessClient();
  cleanups.push(() => void host.dispose());
  await client.invoke('skills/import-package', { package: pkg });
  const stores = createStores(client);
  const el = document.createElement('div');
  document.body.append(el);
  const root = createRoot(el);
  await act(async () =>
    root.render(
      <StoresProvider stores={stores}>
        <LlmSkillAccess skill={skill} />
      </StoresProvider>,
    ),
  );
  cleanups.push(() => {
    act(() => root.unmount());
    el.remove();
  });
  return { el, client };
}

describe('the LLM skill access panel', () => {
  it('grants and revokes a declared host with its switch', async () => {
    const { el, client } = await mount('weather-bot');
    const sw = await vi.waitFor(() => {
      const x = el.querySelector<HTMLInputElement>('input[aria-label="Allow api.weather.example"]');
      if (!x) throw new Error('no switch yet');
      return x;
    });
    expect(sw.checked).toBe(false);
    expect(el.textContent).toContain('blocked until you allow it');
    await act(async () => sw.click());
    await vi.waitFor(async () => {
      const v = await client.invoke('skill-access/get', { name: 'weather-bot' });
      expect(v.network).toEqual([{ host: 'api.weather.example', granted: true }]);
    });
    await vi.waitFor(() => expect(el.textContent).toContain('allowed'));
    await act(async () => el.querySelector<HTMLInputElement>('input[role="switch"]')!.click());
    await vi.waitFor(async () => {
      const v = await client.invoke('skill-access/get', { name: 'weather-bot' });
      expect(v.network[0]!.granted).toBe(false);
    });
  });

  it('stores a secret without ever showing it, and refuses a provider key', async () => {
    const { el, client } = await mount('weather-bot');
    const field = await vi.waitFor(() => {
      const x = el.querySelector<HTMLInputElement>('input[type="password"]');
      if (!x) throw new Error('no field yet');
      return x;
    });
    expect(field.placeholder).toBe('not set');
    const type = async (value: string) => {
      await act(async () => {
        const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
        set.call(field, value);
        field.dispatchEvent(new Event('input', { bubbles: true }));
      });
      await act(async () => el.querySelector<HTMLButtonElement>('button[type="submit"]')!.click());
    };
    await type('w-123');
    await vi.waitFor(() => expect(field.placeholder).toBe('set (type to replace)'));
    expect(field.value).toBe('');
    const v = await client.invoke('skill-access/get', { name: 'weather-bot' });
    expect(v.tool_env).toEqual([{ name: 'WEATHER_API_KEY', has_secret: true }]);
    expect(JSON.stringify(v)).not.toContain('w-123');

    await client.invoke('settings/set-key', { provider: 'openai', key: 'sk-provider-key' });
    await type('sk-provider-key');
    await vi.waitFor(() =>
      expect(el.querySelector('[role="alert"]')?.textContent).toMatch(/one of your model provider keys/),
    );
  });

  it('asks to save a new skill first', async () => {
    const { el } = await mount(null);
    expect(el.textContent).toMatch(/Save the skill to grant its tools network access/);
  });
});
