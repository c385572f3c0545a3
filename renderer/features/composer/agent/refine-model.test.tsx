// @vitest-environment jsdom
// "Refine with AI" offers the model picker "New skill with AI" has, and the run asks for the model
// picked (over the real handler table; the provider's server is not running, so the run fails
// after the request is made, which is all this checks).
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { Channel, Req } from '../../../../electron/contract/channels.js';
import { createStores, StoresProvider } from '../../../stores.js';
import { inProcessClient, samplePackage } from '../../../test-support.js';
import { openDoc } from '../composer-state.js';
import { AgentBar } from './AgentPanels.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await act(() => new Promise((r) => setTimeout(r, 25)));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('Refine with AI', () => {
  it('offers the configured models and refines with the one picked', async () => {
    const { client, host } = inProcessClient();
    cleanups.push(() => host.dispose());
    await client.invoke('skills/import-package', { package: samplePackage() });
    const saved = await client.invoke('settings/save-provider', {
      kind: 'openai-compatible',
      label: 'Beta',
      model: 'beta-large',
      base_url: 'http://127.0.0.1:9/v1',
    });
    // Record what the panel asks for; the call still goes to the real handler.
    const asked: Array<Req<'composer/refine'>> = [];
    const invoke = client.invoke.bind(client);
    client.invoke = (<C extends Channel>(channel: C, req: Req<C>) => {
      if (channel === 'composer/refine') asked.push(req as Req<'composer/refine'>);
      return invoke(channel, req);
    }) as typeof client.invoke;
    const stores = createStores(client);
    await stores.providers.getState().load();
    await stores.composer.getState().openSkill('account:Haiku Helper');
    const doc = openDoc(stores.composer.getState())!;

    const el = document.createElement('div');
    document.body.append(el);
    const root = createRoot(el);
    act(() =>
      root.render(
        <StoresProvider stores={stores}>
          <AgentBar doc={doc} />
        </StoresProvider>,
      ),
    );
    cleanups.push(() => {
      act(() => root.unmount());
      el.remove();
    });
    const button = (name: string) =>
      [...el.querySelectorAll('button')].find((b) => b.textContent?.trim() === name)!;
    act(() => button('Refine with AI').click());
    const panel = el.querySelector('[aria-label="Refine with AI"]')!;
    const select = panel.querySelector('select')!;
    expect(select).toBeTruthy();
    const value = `${saved.id}\u0000beta-large`;
    expect([...select.options].map((o) => o.value)).toContain(value);
    expect([...select.options].find((o) => o.value === value)?.textContent).toBe('Beta · beta-large');

    act(() => {
      select.value = value;
      select.dispatchEvent(new Event('change', { bubbles: true }));
    });
    const input = panel.querySelector('input[aria-label="What should change?"]') as HTMLInputElement;
    const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
    act(() => {
      setValue.call(input, 'make it rhyme');
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    act(() => button('Refine').click());
    await until(() => asked.length === 1, 'the refine request');
    expect(asked[0]).toMatchObject({
      feedback: 'make it rhyme',
      model: { provider: saved.id, model: 'beta-large' },
    });
    await until(() => panel.querySelector('[role="alert"]') !== null, 'the failure');
    expect(panel.textContent).toMatch(/pick a stronger model above/);
  });
});
