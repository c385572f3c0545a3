// @vitest-environment jsdom
// The Composer's Evals panel over the real handler table with no model configured: the trigger
// eval runs, the output eval is shown as not graded (not as passed), and the panel says what to do.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createStores, StoresProvider } from '../../../stores.js';
import { inProcessClient } from '../../../test-support.js';
import { openDoc } from '../composer-state.js';
import { AgentBar } from './AgentPanels.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const pkg = {
  name: 'Haiku Helper',
  description: 'Writes haiku about any topic.',
  version: '1.0.0',
  source: 'user',
  trigger_phrases: ['write a haiku'],
  artifacts: [
    { kind: 'approach', name: 'SKILL.md', content: 'Three lines, 5-7-5.' },
    {
      kind: 'resource',
      name: 'evals/evals.json',
      metadata: { path: 'evals/evals.json' },
      content: JSON.stringify({
        evals: [
          { id: 1, prompt: 'write a haiku about rain', should_trigger: true },
          { id: 2, prompt: 'A haiku about snow.', expectations: ['It has three lines'] },
        ],
      }),
    },
  ],
};

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await act(() => new Promise((r) => setTimeout(r, 25)));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('the Evals panel', () => {
  it('shows an output eval run without a model as not graded, and says to choose a model', async () => {
    const { client, host } = inProcessClient();
    cleanups.push(() => host.dispose());
    const imported = await client.call('skills/import-package', { package: pkg });
    expect(imported.ok).toBe(true);
    const stores = createStores(client);
    await stores.composer.getState().openSkill('account:Haiku Helper');
    const doc = openDoc(stores.composer.getState())!;
    expect(doc.origin).toEqual({ name: 'Haiku Helper', scope: 'account' });

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
    act(() => button('Evals').click());
    await until(() => button('Run evals')?.disabled === false, 'the Run evals button');
    act(() => button('Run evals').click());
    await until(() => el.querySelectorAll('[aria-label="Eval results"] li').length === 2, 'two results');

    const items = [...el.querySelectorAll('[aria-label="Eval results"] li')];
    expect(items[0]!.className).toBe('is-ok');
    expect(items[1]!.className).toBe('is-ng');
    expect(items[1]!.textContent).toContain('output · not graded');
    expect(items[1]!.textContent).toContain('not graded: no model is configured');
    expect(el.querySelector('.ag-score')?.textContent).toContain('50% passed (1 of 2)');
    expect(el.querySelector('[role="status"]')?.textContent).toContain(
      '1 eval was not graded: output evals send their prompt to a model',
    );
  });
});
