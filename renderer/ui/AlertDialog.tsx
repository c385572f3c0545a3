import { type ReactNode, type RefObject, useEffect, useId, useRef } from 'react';

/**
 * A modal question: a title, a body and its buttons. Focus starts on `initialFocus` (else the first
 * button), stays inside while open and goes back where it was on close; Esc and a click on the
 * backdrop dismiss it.
 */
export function AlertDialog(props: {
  title: ReactNode;
  children: ReactNode;
  /** The buttons, in reading order. */
  actions: ReactNode;
  onDismiss: () => void;
  initialFocus?: RefObject<HTMLElement | null>;
  wide?: boolean;
  /** Lets the buttons wrap onto a second line (long labels, three or more). */
  wrapActions?: boolean;
}) {
  const boxRef = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const bodyId = useId();
  const { initialFocus } = props;
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    (initialFocus?.current ?? boxRef.current?.querySelector<HTMLElement>('button:not([disabled])'))?.focus();
    return () => previous?.focus?.();
  }, [initialFocus]);
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      props.onDismiss();
    } else if (e.key === 'Tab') {
      const focusable = boxRef.current?.querySelectorAll<HTMLElement>('button:not([disabled])');
      if (!focusable || focusable.length === 0) return;
      const first = focusable[0]!;
      const last = focusable[focusable.length - 1]!;
      if (e.shiftKey && document.activeElement === first) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && document.activeElement === last) {
        e.preventDefault();
        first.focus();
      }
    }
  };
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: clicking the backdrop dismisses; keyboard users have Esc
    <div
      className="scrim"
      role="presentation"
      onMouseDown={(e) => e.target === e.currentTarget && props.onDismiss()}
    >
      <div
        ref={boxRef}
        className={`dialog${props.wide ? ' dialog--wide' : ''}`}
        role="alertdialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={bodyId}
        onKeyDown={onKeyDown}
      >
        <h2 id={titleId} className="dialog__title">
          {props.title}
        </h2>
        <div id={bodyId} className="dialog__body">
          {props.children}
        </div>
        <div className={`dialog__actions${props.wrapActions ? ' dialog__actions--wrap' : ''}`}>
          {props.actions}
        </div>
      </div>
    </div>
  );
}
