import { type ReactNode, useRef } from 'react';
import { AlertDialog } from './AlertDialog.js';

/** A modal confirmation. Focus starts on Cancel; Esc cancels; focus stays inside while open. */
export function ConfirmDialog(props: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  return (
    <AlertDialog
      title={props.title}
      onDismiss={props.onCancel}
      initialFocus={cancelRef}
      actions={
        <>
          <button ref={cancelRef} type="button" className="btn" onClick={props.onCancel}>
            Cancel
          </button>
          <button
            type="button"
            className={`btn ${props.danger ? 'btn--danger' : 'btn--primary'}`}
            onClick={props.onConfirm}
            disabled={props.busy}
          >
            {props.busy ? 'Working…' : props.confirmLabel}
          </button>
        </>
      }
    >
      {props.children}
    </AlertDialog>
  );
}
