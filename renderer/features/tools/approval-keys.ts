/**
 * The keyboard rules of the tool-approval card. A card appears while the user may be typing in the
 * message box, so no plain key may answer it: only the platform's command modifier with Enter
 * (allow once) or `.` (deny, the macOS "cancel" chord). Nothing but a click, or a button the user
 * tabbed to, chooses "allow in this chat" or "always allow".
 */

/** The fields of a key event these rules read (a DOM `KeyboardEvent` has them all). */
export interface KeyLike {
  key: string;
  code?: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  repeat?: boolean;
  isComposing?: boolean;
}

/** The answers a shortcut can give; the standing ones are deliberately absent. */
export type ShortcutDecision = 'once' | 'deny';

/** Whether this is a Mac (⌘ rather than Ctrl), as the app's other shortcuts decide it. */
export function isMacPlatform(): boolean {
  return typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
}

/**
 * The answer a key press gives to the waiting approval, or null. A held key's repeats are ignored
 * so that one long press cannot answer the next card too.
 */
export function approvalShortcut(e: KeyLike, mac: boolean): ShortcutDecision | null {
  if (e.isComposing || e.repeat || e.altKey) return null;
  const mod = mac ? e.metaKey && !e.ctrlKey : e.ctrlKey && !e.metaKey;
  if (!mod) return null;
  if (e.key === 'Enter') return e.shiftKey ? null : 'once';
  // Where `.` needs Shift (AZERTY) the key still reads '.'; elsewhere the physical key counts.
  if (e.key === '.' || (e.code === 'Period' && !e.shiftKey)) return 'deny';
  return null;
}

/** The shortcuts as shown on the buttons and as `aria-keyshortcuts` names them. */
export function shortcutLabels(mac: boolean): Record<ShortcutDecision, { shown: string; aria: string }> {
  return mac
    ? { once: { shown: '⌘ Enter', aria: 'Meta+Enter' }, deny: { shown: '⌘ .', aria: 'Meta+Period' } }
    : {
        once: { shown: 'Ctrl Enter', aria: 'Control+Enter' },
        deny: { shown: 'Ctrl .', aria: 'Control+Period' },
      };
}

/**
 * Whether a key press produces text (a letter, digit, punctuation or space). Ctrl with Alt is
 * AltGr on Windows and Option composes characters on a Mac, so those count as text too.
 */
export function isTypedText(e: KeyLike): boolean {
  if (e.isComposing || e.metaKey || (e.ctrlKey && !e.altKey)) return false;
  return [...e.key].length === 1;
}
