// @vitest-environment jsdom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Command, CommandPalette, filterCommands } from './CommandPalette.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const cmd = (id: string, label: string, hint?: string): Command => ({
  id,
  label,
  icon: 'plus',
  hint,
  run: vi.fn(),
});

describe('command palette', () => {
  const commands = [
    cmd('chat', 'New chat'),
    cmd('ai', 'New skill with AI', 'create describe agent'),
    cmd('dark', 'Theme: dark', 'appearance'),
  ];

  it('finds commands by every word, in label or hint', () => {
    expect(filterCommands(commands, '').map((c) => c.id)).toEqual(['chat', 'ai', 'dark']);
    expect(filterCommands(commands, 'new').map((c) => c.id)).toEqual(['chat', 'ai']);
    expect(filterCommands(commands, 'skill AI').map((c) => c.id)).toEqual(['ai']);
    expect(filterCommands(commands, 'describe').map((c) => c.id)).toEqual(['ai']);
    expect(filterCommands(commands, 'appearance dark').map((c) => c.id)).toEqual(['dark']);
    expect(filterCommands(commands, 'nothing')).toEqual([]);
  });

  it('runs the chosen command with the keyboard, after closing', async () => {
    const el = document.createElement('div');
    document.body.append(el);
    const root = createRoot(el);
    const onClose = vi.fn();
    cleanups.push(() => {
      act(() => root.unmount());
      el.remove();
    });
    act(() => root.render(<CommandPalette commands={commands} onClose={onClose} />));
    const input = el.querySelector('input')!;
    expect(document.activeElement).toBe(input);
    const key = (k: string) =>
      act(() => input.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true })));
    key('ArrowDown');
    expect(el.querySelector('[aria-selected="true"]')?.textContent).toBe('New skill with AI');
    key('ArrowUp');
    key('ArrowUp');
    expect(el.querySelector('[aria-selected="true"]')?.textContent).toBe('Theme: dark');
    key('ArrowDown');
    key('ArrowDown');
    key('Enter');
    expect(onClose).toHaveBeenCalledOnce();
    await new Promise((r) => requestAnimationFrame(() => r(null)));
    expect(commands[1]!.run).toHaveBeenCalledOnce();
    expect(commands[0]!.run).not.toHaveBeenCalled();
  });
});
