// @vitest-environment jsdom
// The Composer's Evals panel over the real handler table with no model configured: the trigger
// eval runs, the output eval is shown as not graded (not as passed), and the panel says what to do.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createStores, StoresProvider, useComposerStore } from '../../../stores.js';
import { inProcessClient } from '../../../test-support.js';
import { bundledPath, openDoc } from '../composer-state.js';
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
    await until(() => el.querySelectorAll('[aria-label="Eval results"] > li').length === 2, 'two results');

    const items = [...el.querySelectorAll('[aria-label="Eval results"] > li')];
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

/** The Evals bar over the open doc, re-rendered as the draft changes. */
function LiveBar() {
  const doc = useComposerStore((s) => openDoc(s));
  return doc ? <AgentBar doc={doc} /> : null;
}

/** Set a form control's value as typing does (React listens for input and change events). */
function type(el: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement, value: string) {
  const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), 'value')!.set!;
  act(() => {
    setter.call(el, value);
    el.dispatchEvent(new Event(el instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
  });
}

describe('the evals rows editor', () => {
  it('adds, edits and removes rows of a never-saved draft, keeps unknown fields, and runs the draft', async () => {
    const { client, host } = inProcessClient();
    cleanups.push(() => host.dispose());
    const stores = createStores(client);
    const composer = stores.composer;
    composer.getState().newSkill('instructions');
    const el = document.createElement('div');
    document.body.append(el);
    const root = createRoot(el);
    act(() =>
      root.render(
        <StoresProvider stores={stores}>
          <LiveBar />
        </StoresProvider>,
      ),
    );
    cleanups.push(() => {
      act(() => root.unmount());
      el.remove();
    });
    const button = (name: string) =>
      [...el.querySelectorAll('button')].find(
        (b) => b.textContent?.trim() === name || b.getAttribute('aria-label') === name,
      )!;
    const field = <T extends Element>(label: string) =>
      el.querySelector<T & Element>(`[aria-label="${label}"]`)!;
    const fileText = () => {
      const doc = openDoc(composer.getState())!;
      expect(doc.origin).toBeNull();
      return doc.draft.artifacts.find((a) => bundledPath(a) === 'evals/evals.json')?.content ?? null;
    };
    act(() => button('Evals').click());
    expect(el.textContent).toContain('No evals yet');
    expect(fileText()).toBeNull();

    // Add an output eval and a trigger eval, fill them in.
    act(() => button('Add eval').click());
    type(field<HTMLTextAreaElement>('Prompt of eval 1'), 'Summarise this note');
    type(field<HTMLTextAreaElement>('Expected output of eval 1'), 'Two sentences');
    type(field<HTMLInputElement>('Check 1 of eval 1'), 'It has two sentences');
    act(() => button('Add a check to eval 1').click());
    type(field<HTMLInputElement>('Check 2 of eval 1'), 'It keeps the dates');
    act(() => button('Add trigger eval').click());
    type(field<HTMLTextAreaElement>('Prompt of eval 2'), 'sum up my meeting notes');
    type(field<HTMLSelectElement>('Kind of eval 2'), 'trigger-no');
    expect(JSON.parse(fileText()!)).toEqual({
      evals: [
        {
          id: 1,
          prompt: 'Summarise this note',
          expected_output: 'Two sentences',
          assertions: ['It has two sentences', 'It keeps the dates'],
        },
        { id: 2, prompt: 'sum up my meeting notes', should_trigger: false },
      ],
    });

    // A field the form does not show, written by hand (or by another tool), survives edits.
    const withExtra = JSON.parse(fileText()!);
    withExtra.evals[0].grader_notes = 'keep me';
    withExtra.suite = 'v2';
    act(() => composer.getState().setBundledFile('evals/evals.json', JSON.stringify(withExtra)));
    act(() => button('Remove check 1 of eval 1').click());
    act(() => button('Remove eval 2').click());
    expect(JSON.parse(fileText()!)).toEqual({
      suite: 'v2',
      evals: [
        {
          id: 1,
          prompt: 'Summarise this note',
          expected_output: 'Two sentences',
          assertions: ['It keeps the dates'],
          grader_notes: 'keep me',
        },
      ],
    });

    // The draft runs as it is (no model here: the output eval is not graded, not passed).
    const run = button('Run evals on the draft');
    expect(run.disabled).toBe(false);
    act(() => run.click());
    await until(() => el.querySelectorAll('[aria-label="Eval results"] > li').length === 1, 'the result');
    expect(el.querySelector('.ag-score')?.textContent).toContain('draft');
    expect(el.querySelector('[aria-label="Eval results"] > li')!.textContent).toContain(
      'Summarise this note',
    );
    expect((await client.call('skills/list', {})).ok).toBe(true);
    const listed = await client.call('skills/list', {});
    if (listed.ok)
      expect(JSON.stringify(listed.value)).not.toContain(openDoc(composer.getState())!.draft.name);

    // Text that is not JSON is shown to fix, never replaced.
    const broken = '{"evals": [{"id": 1, "prompt": "x"},]';
    act(() => composer.getState().setBundledFile('evals/evals.json', broken));
    expect(el.querySelector('[role="alert"]')?.textContent).toContain('evals/evals.json is not JSON');
    const raw = field<HTMLTextAreaElement>('evals/evals.json as text');
    expect(raw.value).toBe(broken);
    type(raw, '{"evals": [{"id": 1, "prompt": "x"}]}');
    expect(field<HTMLTextAreaElement>('Prompt of eval 1').value).toBe('x');
  });
});
