import { describe, expect, it } from 'vitest';
import { approvalShortcut, isTypedText, type KeyLike, shortcutLabels } from './approval-keys.js';

const key = (k: string, over: Partial<KeyLike> = {}): KeyLike => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...over,
});

// Everything a user might type into the message box, letters of every answer's old shortcut included.
const TYPED = [...'also Always a c d y n ACD.,;-/', ' ', 'Enter', 'Escape', 'Tab', 'Backspace'];

describe('approval shortcuts', () => {
  it('no plain or shifted key answers, on any platform', () => {
    for (const mac of [false, true])
      for (const k of TYPED) {
        expect(approvalShortcut(key(k), mac), k).toBeNull();
        expect(approvalShortcut(key(k, { shiftKey: true }), mac), `Shift ${k}`).toBeNull();
      }
  });

  it('Ctrl Enter allows once and Ctrl . denies (⌘ on a Mac); the other modifier does nothing', () => {
    expect(approvalShortcut(key('Enter', { ctrlKey: true }), false)).toBe('once');
    expect(approvalShortcut(key('.', { ctrlKey: true, code: 'Period' }), false)).toBe('deny');
    expect(approvalShortcut(key('Enter', { metaKey: true }), true)).toBe('once');
    expect(approvalShortcut(key('.', { metaKey: true }), true)).toBe('deny');
    expect(approvalShortcut(key('Enter', { metaKey: true }), false)).toBeNull();
    expect(approvalShortcut(key('Enter', { ctrlKey: true }), true)).toBeNull();
    // AZERTY: '.' is Shift and the ';' key; the character decides.
    expect(approvalShortcut(key('.', { ctrlKey: true, shiftKey: true, code: 'Comma' }), false)).toBe('deny');
  });

  it('never chooses a standing answer: every modified key gives allow once, deny or nothing', () => {
    const mods: Array<Partial<KeyLike>> = [
      { ctrlKey: true },
      { metaKey: true },
      { altKey: true },
      { ctrlKey: true, shiftKey: true },
      { metaKey: true, shiftKey: true },
      { ctrlKey: true, altKey: true },
      { ctrlKey: true, metaKey: true },
    ];
    for (const mac of [false, true])
      for (const m of mods)
        for (const k of TYPED) expect([null, 'once', 'deny']).toContain(approvalShortcut(key(k, m), mac));
    expect(approvalShortcut(key('a', { ctrlKey: true }), false)).toBeNull();
    expect(approvalShortcut(key('c', { ctrlKey: true }), false)).toBeNull();
    expect(approvalShortcut(key('Enter', { ctrlKey: true, shiftKey: true }), false)).toBeNull();
    expect(approvalShortcut(key('Enter', { ctrlKey: true, altKey: true }), false)).toBeNull();
  });

  it('ignores a held key and a key inside an input method composition', () => {
    expect(approvalShortcut(key('Enter', { ctrlKey: true, repeat: true }), false)).toBeNull();
    expect(approvalShortcut(key('Enter', { ctrlKey: true, isComposing: true }), false)).toBeNull();
  });

  it('shows the platform’s keys', () => {
    expect(shortcutLabels(false).once.shown).toBe('Ctrl Enter');
    expect(shortcutLabels(true).deny).toEqual({ shown: '⌘ .', aria: 'Meta+Period' });
  });

  it('tells typed text from commands', () => {
    for (const k of ['a', 'A', ' ', '.', 'é', '😀']) expect(isTypedText(key(k)), k).toBe(true);
    expect(isTypedText(key('@', { ctrlKey: true, altKey: true }))).toBe(true);
    for (const k of ['Enter', 'Tab', 'Escape', 'ArrowLeft', 'Backspace'])
      expect(isTypedText(key(k)), k).toBe(false);
    expect(isTypedText(key('c', { ctrlKey: true }))).toBe(false);
    expect(isTypedText(key('v', { metaKey: true }))).toBe(false);
    expect(isTypedText(key('a', { isComposing: true }))).toBe(false);
  });
});
