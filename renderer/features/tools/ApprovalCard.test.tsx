// @vitest-environment jsdom
import { act, createRef } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalRequestedEvent } from '../../../electron/contract/tools.js';
import { createStores, StoresProvider } from '../../stores.js';
import { inProcessClient } from '../../test-support.js';
import { ApprovalList, type ApprovalScope } from './ApprovalCard.js';
import { ChatApprovals } from './ChatApprovals.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const request = (over: Partial<ApprovalRequestedEvent> = {}): ApprovalRequestedEvent => ({
  approval_id: 'a1',
  session_id: 's1',
  call_id: 'c1',
  tool: 'everything__echo',
  server: 'everything',
  server_tool: 'echo',
  title: null,
  description: 'Echoes back the input',
  args: { message: 'hi' },
  annotations: null,
  expires_at: new Date(Date.now() + 300_000).toISOString(),
  ...over,
});

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A message box (focused, as while the user types) and below it the root the cards render into. */
function setup() {
  const box = document.createElement('textarea');
  box.setAttribute('aria-label', 'Message');
  const boxKeys: string[] = [];
  box.addEventListener('keydown', (e) => boxKeys.push(e.key));
  const el = document.createElement('div');
  document.body.append(el, box);
  box.focus();
  const root: Root = createRoot(el);
  cleanups.push(() => {
    act(() => root.unmount());
    el.remove();
    box.remove();
  });
  const composerRef = createRef<HTMLTextAreaElement>();
  (composerRef as { current: HTMLTextAreaElement | null }).current = box;
  return { box, boxKeys, el, root, composerRef };
}

function render(
  s: ReturnType<typeof setup>,
  props: {
    pending: ApprovalRequestedEvent[];
    answering?: Record<string, true>;
    scope?: ApprovalScope;
    mac?: boolean;
    onAnswer: (id: string, d: string) => void;
  },
) {
  act(() =>
    s.root.render(
      <ApprovalList
        pending={props.pending}
        answering={props.answering ?? {}}
        scope={props.scope ?? { kind: 'workspace', name: 'notes' }}
        composerRef={s.composerRef}
        mac={props.mac ?? false}
        onAnswer={props.onAnswer}
      />,
    ),
  );
}

/** Press a key the way a browser dispatches it: at whatever has focus. */
function press(key: string, init: KeyboardEventInit = {}): KeyboardEvent {
  const target = document.activeElement ?? document.body;
  const e = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init });
  act(() => {
    target.dispatchEvent(e);
  });
  return e;
}

const button = (el: HTMLElement, name: RegExp) =>
  [...el.querySelectorAll('button')].find((b) => name.test(b.textContent ?? ''))!;

describe('ApprovalCard', () => {
  it('shows the code run_python will run as written, and its answers', () => {
    const s = setup();
    const onAnswer = vi.fn();
    const code = 'import csv\nfor row in csv.reader(open("sales.csv")):\n    print(row)\n';
    render(s, {
      pending: [
        request({
          tool: 'run_python',
          server: 'skilldesk',
          server_tool: 'run_python',
          title: 'Run Python',
          description: "The model wants to run Python code (Pyodide) in this chat's folder",
          args: { code },
        }),
      ],
      onAnswer,
    });
    const shown = s.el.querySelector('.approval__code code');
    expect(shown?.textContent).toBe(code);
    expect(s.el.querySelector('.approval__title')?.textContent).toContain('Run Python: allow run_python?');
    act(() => button(s.el, /Allow in this chat/).click());
    expect(onAnswer).toHaveBeenCalledWith('a1', 'chat');
  });

  it('appears without taking focus from the message box, and no typed key answers it', () => {
    const s = setup();
    const onAnswer = vi.fn();
    render(s, { pending: [request()], onAnswer });
    expect(s.el.querySelector('.approval')).not.toBeNull();
    expect(document.activeElement).toBe(s.box);
    for (const k of [...'also Always allow, deny? yes', 'Enter', 'Escape']) {
      const e = press(k);
      expect(e.defaultPrevented, k).toBe(false);
      expect(document.activeElement).toBe(s.box);
    }
    expect(onAnswer).not.toHaveBeenCalled();
    // Every key reached the message box.
    expect(s.boxKeys.join('')).toBe('also Always allow, deny? yesEnterEscape');
  });

  it('a second card arriving does not take focus either', () => {
    const s = setup();
    render(s, { pending: [request()], onAnswer: vi.fn() });
    render(s, {
      pending: [request(), request({ approval_id: 'a2', server_tool: 'get-sum' })],
      onAnswer: vi.fn(),
    });
    expect(s.el.querySelectorAll('.approval')).toHaveLength(2);
    expect(document.activeElement).toBe(s.box);
  });

  it('Ctrl Enter allows the oldest once and Ctrl . denies, before the message box sees the key', () => {
    const s = setup();
    const onAnswer = vi.fn();
    render(s, { pending: [request(), request({ approval_id: 'a2' })], onAnswer });
    const e = press('Enter', { ctrlKey: true });
    expect(e.defaultPrevented).toBe(true);
    expect(onAnswer).toHaveBeenLastCalledWith('a1', 'once');
    // The message box's own Enter (send) never saw it.
    expect(s.boxKeys).toEqual([]);
    render(s, { pending: [request({ approval_id: 'a2' })], onAnswer });
    press('.', { ctrlKey: true, code: 'Period' });
    expect(onAnswer).toHaveBeenLastCalledWith('a2', 'deny');
    expect(onAnswer).toHaveBeenCalledTimes(2);
  });

  it('uses ⌘ on a Mac, and Ctrl there is left alone', () => {
    const s = setup();
    const onAnswer = vi.fn();
    render(s, { pending: [request()], mac: true, onAnswer });
    expect(press('Enter', { ctrlKey: true }).defaultPrevented).toBe(false);
    expect(onAnswer).not.toHaveBeenCalled();
    press('Enter', { metaKey: true });
    expect(onAnswer).toHaveBeenCalledWith('a1', 'once');
    expect(button(s.el, /^Allow once/).textContent).toBe('Allow once ⌘ Enter');
  });

  it('a second press while the answer is on its way does not answer the next card; held keys are ignored', () => {
    const s = setup();
    const onAnswer = vi.fn();
    render(s, { pending: [request(), request({ approval_id: 'a2' })], answering: { a1: true }, onAnswer });
    expect(press('Enter', { ctrlKey: true }).defaultPrevented).toBe(true);
    render(s, { pending: [request()], onAnswer });
    press('Enter', { ctrlKey: true, repeat: true });
    expect(onAnswer).not.toHaveBeenCalled();
  });

  it('leaves the keys to a modal dialog that is open', () => {
    const s = setup();
    const onAnswer = vi.fn();
    const dialog = document.createElement('div');
    dialog.setAttribute('aria-modal', 'true');
    document.body.append(dialog);
    cleanups.push(() => dialog.remove());
    render(s, { pending: [request()], onAnswer });
    press('Enter', { ctrlKey: true });
    expect(onAnswer).not.toHaveBeenCalled();
  });

  it('stops listening once no approval waits', () => {
    const s = setup();
    const onAnswer = vi.fn();
    render(s, { pending: [request()], onAnswer });
    render(s, { pending: [], onAnswer });
    expect(s.el.querySelector('.approval')).toBeNull();
    expect(press('Enter', { ctrlKey: true }).defaultPrevented).toBe(false);
    expect(onAnswer).not.toHaveBeenCalled();
  });

  it('is usable from the keyboard: buttons in the tab order with their shortcuts, the card itself not', () => {
    const s = setup();
    const onAnswer = vi.fn();
    render(s, { pending: [request()], onAnswer });
    const card = s.el.querySelector<HTMLElement>('.approval')!;
    expect(card.tabIndex).toBe(-1);
    const buttons = [...card.querySelectorAll('button')];
    expect(buttons.map((b) => b.textContent)).toEqual([
      'Allow once Ctrl Enter',
      'Allow in this chat',
      'Always allow in “notes”',
      'Deny Ctrl .',
    ]);
    for (const b of buttons) expect(b.tabIndex).toBe(0);
    expect(buttons[0]!.getAttribute('aria-keyshortcuts')).toBe('Control+Enter');
    expect(buttons[3]!.getAttribute('aria-keyshortcuts')).toBe('Control+Period');
    // No key is bound to the standing answers.
    expect(buttons[1]!.hasAttribute('aria-keyshortcuts')).toBe(false);
    expect(buttons[2]!.hasAttribute('aria-keyshortcuts')).toBe(false);
    act(() => buttons[2]!.click());
    expect(onAnswer).toHaveBeenCalledWith('a1', 'always');
    act(() => buttons[1]!.click());
    expect(onAnswer).toHaveBeenLastCalledWith('a1', 'chat');
  });

  it('passes text typed while focus is in the card on to the message box; Space on a button still presses it', () => {
    const s = setup();
    const onAnswer = vi.fn();
    render(s, { pending: [request()], onAnswer });
    const always = button(s.el, /^Always allow/);
    always.focus();
    const e = press(' ');
    expect(document.activeElement).toBe(always);
    expect(e.defaultPrevented).toBe(false);
    press('a');
    expect(document.activeElement).toBe(s.box);
    // A click on the card's text focuses the card: typed text goes on from there too.
    const card = s.el.querySelector<HTMLElement>('.approval')!;
    card.focus();
    press(' ');
    expect(document.activeElement).toBe(s.box);
    expect(onAnswer).not.toHaveBeenCalled();
    // Commands and navigation stay where they are.
    always.focus();
    press('Tab');
    press('c', { ctrlKey: true });
    expect(document.activeElement).toBe(always);
  });

  it('says what "always allow" stores and where it is revoked', () => {
    const s = setup();
    render(s, { pending: [request()], onAnswer: vi.fn() });
    const always = button(s.el, /^Always allow/);
    const said = document.getElementById(always.getAttribute('aria-describedby')!)!.textContent;
    expect(said).toBe(
      'Always allow saves echo from everything as always allowed in the workspace “notes”: it then runs without asking until you revoke it in Settings → Tool approvals.',
    );
    expect(always.title).toMatch(/Settings → Tool approvals/);

    render(s, {
      pending: [request({ server: 'skill', server_tool: 'Web Fetcher' })],
      scope: { kind: 'account' },
      onAnswer: vi.fn(),
    });
    const again = button(s.el, /^Always allow/);
    expect(again.textContent).toBe('Always allow in your account');
    expect(document.getElementById(again.getAttribute('aria-describedby')!)!.textContent).toMatch(
      /^Always allow saves the skill Web Fetcher as always allowed in your account \(used while no workspace is open\)/,
    );
  });

  it('announces the waiting call politely (without moving focus) with its shortcuts', () => {
    const s = setup();
    render(s, { pending: [request()], onAnswer: vi.fn() });
    expect(s.el.querySelector('[role="status"]')!.textContent).toBe(
      'Tool echo from everything asks to run. Ctrl Enter allows once, Ctrl . denies.',
    );
  });
});

describe('ChatApprovals', () => {
  it("shows the open chat's approvals with the open workspace as the scope of always allow", async () => {
    const { client, host } = inProcessClient();
    cleanups.push(() => void host.dispose());
    const stores = createStores(client);
    const answer = vi.fn(async () => {});
    stores.tools.setState({
      pending: [request(), request({ approval_id: 'other', session_id: 's2' })],
      answer,
    });
    stores.workspace.setState({
      current: { path: '/home/u/notes', name: 'notes', can_pick_folder: false, pages: null },
    });
    const s = setup();
    act(() =>
      s.root.render(
        <StoresProvider stores={stores}>
          <ChatApprovals sessionId="s1" composerRef={s.composerRef} />
        </StoresProvider>,
      ),
    );
    expect(s.el.querySelectorAll('.approval')).toHaveLength(1);
    expect(button(s.el, /^Always allow/).textContent).toBe('Always allow in “notes”');
    expect(document.activeElement).toBe(s.box);
    press('Enter', { ctrlKey: true });
    expect(answer).toHaveBeenCalledWith('a1', 'once');

    act(() =>
      stores.workspace.setState({ current: { path: null, name: null, can_pick_folder: false, pages: null } }),
    );
    expect(button(s.el, /^Always allow/).textContent).toBe('Always allow in your account');
  });
});
