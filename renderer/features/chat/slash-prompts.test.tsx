// @vitest-environment jsdom
// The `/` menu offers the prompts of connected MCP servers (server-everything here, over stdio)
// beside the skills; one with arguments opens a form, and its filled text lands in the message box.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { act, createRef } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import { createStores, StoresProvider } from '../../stores.js';
import { inProcessClient } from '../../test-support.js';
import { Composer } from './Composer.js';
import { promptMatches, promptText, slashItems } from './ComposerExtras.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const req = createRequire(import.meta.url);
const everything = join(
  dirname(req.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (check()) return;
    await act(() => new Promise((r) => setTimeout(r, 20)));
  }
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

/** Type into a React-controlled textarea. */
function typeInto(el: HTMLTextAreaElement, value: string) {
  const set = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!;
  set.call(el, value);
  el.dispatchEvent(new Event('input', { bubbles: true }));
}

const prompt = (name: string, title: string | null = null) => ({
  server: 's',
  name,
  title,
  description: null,
  arguments: [],
});

describe('MCP prompts in the / menu', () => {
  it('matches prompts by name or title after the skills, and writes a conversation as one text', () => {
    expect(
      promptMatches([prompt('zeta'), prompt('simple-prompt', 'Simple')], 'sim').map((p) => p.name),
    ).toEqual(['simple-prompt']);
    expect(promptMatches([prompt('x', 'Weather report')], 'weather')).toHaveLength(1);
    expect(slashItems([], [prompt('a')], '').map((i) => i.kind)).toEqual(['prompt']);
    expect(promptText([{ role: 'user', text: 'Hi' }])).toBe('Hi');
    expect(
      promptText([
        { role: 'user', text: 'Q' },
        { role: 'assistant', text: 'A' },
      ]),
    ).toBe('User: Q\n\nAssistant: A');
  });

  it("offers a server's prompts, asks for their arguments in a form and puts the result in the message box", async () => {
    const { client } = inProcessClient();
    await client.invoke('tools/save-server', {
      scope: 'account',
      name: 'everything',
      config: { command: process.execPath, args: [everything, 'stdio'] },
    });
    const stores = createStores(client);
    const el = document.createElement('div');
    document.body.append(el);
    const root = createRoot(el);
    const inputRef = createRef<HTMLTextAreaElement>();
    await act(async () => {
      root.render(
        <StoresProvider stores={stores}>
          <Composer inputRef={inputRef} configured={false} onOpenSkill={() => {}} onSend={() => {}} />
        </StoresProvider>,
      );
    });
    const input = el.querySelector<HTMLTextAreaElement>('#composer-input')!;
    await act(async () => typeInto(input, '/args'));
    await until(() => el.textContent?.includes('Arguments Prompt') ?? false, 'the prompt in the menu');
    expect(el.querySelector('.slash')!.textContent).toContain('MCP prompts');
    const option = [...el.querySelectorAll<HTMLElement>('[role="option"]')].find((o) =>
      o.textContent?.includes('Arguments Prompt'),
    )!;
    await act(async () => {
      option.dispatchEvent(new MouseEvent('mousedown', { bubbles: true }));
    });
    const form = el.querySelector<HTMLFormElement>('form[aria-label^="Prompt Arguments Prompt"]')!;
    expect(form).not.toBeNull();
    const submit = form.querySelector<HTMLButtonElement>('button[type="submit"]')!;
    expect(submit.disabled).toBe(true); // city is required
    await act(async () => typeInto(form.querySelector<HTMLTextAreaElement>('#prompt-arg-city')!, 'Lyon'));
    expect(submit.disabled).toBe(false);
    await act(async () => {
      form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    await until(() => input.value === "What's weather in Lyon?", 'the prompt text in the message box');
    expect(el.querySelector('form[aria-label^="Prompt "]')).toBeNull();
    await act(async () => root.unmount());
  }, 60_000);
});
