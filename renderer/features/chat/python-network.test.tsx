// @vitest-environment jsdom
// The chat's Python network hosts beside Files: none by default; a host typed and submitted is
// allowed (through the real host's python/set-network), a URL is refused with the reason, and ×
// takes a host back.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import { createStores, StoresProvider } from '../../stores.js';
import { inProcessClient } from '../../test-support.js';
import { PythonNetworkAsk, PythonNetworkHosts, refusedHostsOf } from './ChatFiles.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

function type(input: HTMLInputElement, value: string) {
  const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
  set.call(input, value);
  input.dispatchEvent(new Event('input', { bubbles: true }));
}

describe('PythonNetworkHosts', () => {
  it('allows and takes back hosts for the chat; refuses a URL', async () => {
    const { client, host } = inProcessClient();
    try {
      const { session_id } = await client.invoke('chat/send-message', { message: 'hello' });
      const el = document.createElement('div');
      document.body.append(el);
      const root = createRoot(el);
      await act(async () => {
        root.render(
          <StoresProvider stores={createStores(client)}>
            <PythonNetworkHosts sessionId={session_id} />
          </StoresProvider>,
        );
      });
      await expect.poll(() => el.textContent).toContain('Network: none');
      const input = el.querySelector<HTMLInputElement>(
        'input[aria-label="Allow a host for this chat\'s Python"]',
      )!;
      const form = el.querySelector('form')!;
      await act(async () => type(input, 'https://api.example.com/v1'));
      await act(async () => form.requestSubmit());
      await expect.poll(() => el.querySelector('[role="alert"]')?.textContent ?? '').toMatch(/not a URL/);
      await act(async () => type(input, 'API.example.com'));
      await act(async () => form.requestSubmit());
      await expect
        .poll(() => el.querySelector('.chat-files__host')?.textContent ?? '')
        .toBe('api.example.com×');
      expect((await client.invoke('python/get-network', { session_id })).hosts).toEqual(['api.example.com']);
      await act(async () =>
        el.querySelector<HTMLButtonElement>('button[aria-label="Stop allowing api.example.com"]')!.click(),
      );
      await expect.poll(() => el.textContent).toContain('Network: none');
      expect((await client.invoke('python/get-network', { session_id })).hosts).toEqual([]);
      root.unmount();
    } finally {
      await host.dispose();
    }
  }, 60_000);

  it('asks to allow a host a run was refused, apart from the run; the Files bar shows it at once', async () => {
    expect(
      refusedHostsOf({
        requests: [
          { method: 'GET', url: 'https://a.example/', status: null, refused_host: 'a.example' },
          { refused_host: 'a.example' },
          { refused_host: 42 },
          { url: 'https://b.example/', status: 200 },
        ],
      }),
    ).toEqual(['a.example']);
    expect(refusedHostsOf('not an object')).toEqual([]);
    const { client, host } = inProcessClient();
    try {
      const { session_id } = await client.invoke('chat/send-message', { message: 'hello' });
      const stores = createStores(client);
      stores.chat.setState({ activeId: session_id });
      const result = {
        stdout: '',
        requests: [
          { method: 'GET', url: 'https://api.example.com/x', status: null, refused_host: 'api.example.com' },
        ],
      };
      const el = document.createElement('div');
      document.body.append(el);
      const root = createRoot(el);
      await act(async () => {
        root.render(
          <StoresProvider stores={stores}>
            <PythonNetworkHosts sessionId={session_id} />
            <PythonNetworkAsk result={result} />
          </StoresProvider>,
        );
      });
      await expect
        .poll(() => el.textContent)
        .toContain("The run tried to reach api.example.com; this chat's Python may not.");
      const allow = [...el.querySelectorAll('button')].find(
        (b) => b.textContent === 'Allow api.example.com for this chat',
      )!;
      await act(async () => allow.click());
      await expect
        .poll(() => el.querySelector('[role="status"]')?.textContent ?? '')
        .toMatch(/is allowed for this chat/);
      expect((await client.invoke('python/get-network', { session_id })).hosts).toEqual(['api.example.com']);
      // The Files bar's field reads the same grants: no reload needed.
      expect(el.querySelector('.chat-files__host')?.textContent).toBe('api.example.com×');
      // A host already allowed before the run is not asked about.
      const el2 = document.createElement('div');
      const root3 = createRoot(el2);
      await act(async () => {
        root3.render(
          <StoresProvider stores={stores}>
            <PythonNetworkAsk result={result} />
          </StoresProvider>,
        );
      });
      expect(el2.textContent).toBe('');
      root.unmount();
      root3.unmount();
    } finally {
      await host.dispose();
    }
  }, 60_000);
});
