// @vitest-environment jsdom
import { act, useRef } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AlertDialog } from './AlertDialog.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function Harness({ onDismiss }: { onDismiss: () => void }) {
  const second = useRef<HTMLButtonElement>(null);
  return (
    <AlertDialog
      title="Save over it?"
      onDismiss={onDismiss}
      initialFocus={second}
      actions={
        <>
          <button type="button">Cancel</button>
          <button ref={second} type="button">
            Save
          </button>
        </>
      }
    >
      <p>It becomes yours.</p>
    </AlertDialog>
  );
}

function mount(onDismiss: () => void) {
  const opener = document.createElement('button');
  document.body.append(opener);
  opener.focus();
  const host = document.createElement('div');
  document.body.append(host);
  const root = createRoot(host);
  act(() => root.render(<Harness onDismiss={onDismiss} />));
  cleanups.push(() => {
    host.remove();
    opener.remove();
  });
  return { root, host, opener };
}

const key = (el: Element, k: string, shiftKey = false) =>
  act(() => {
    el.dispatchEvent(new KeyboardEvent('keydown', { key: k, shiftKey, bubbles: true }));
  });

describe('AlertDialog', () => {
  it('names itself by its title and body, starts on the chosen button and keeps Tab inside', () => {
    const { host } = mount(vi.fn());
    const box = host.querySelector('[role="alertdialog"]')!;
    expect(document.getElementById(box.getAttribute('aria-labelledby')!)?.textContent).toBe('Save over it?');
    expect(document.getElementById(box.getAttribute('aria-describedby')!)?.textContent).toBe(
      'It becomes yours.',
    );
    expect(document.activeElement?.textContent).toBe('Save');
    key(document.activeElement!, 'Tab');
    expect(document.activeElement?.textContent).toBe('Cancel');
    key(document.activeElement!, 'Tab', true);
    expect(document.activeElement?.textContent).toBe('Save');
  });

  it('is dismissed by Esc and by the backdrop, and gives focus back on close', () => {
    const onDismiss = vi.fn();
    const { root, host, opener } = mount(onDismiss);
    key(document.activeElement!, 'Escape');
    act(() => {
      host.querySelector('.scrim')!.dispatchEvent(new MouseEvent('mousedown', { bubbles: true }));
    });
    expect(onDismiss).toHaveBeenCalledTimes(2);
    act(() => root.unmount());
    expect(document.activeElement).toBe(opener);
  });
});
