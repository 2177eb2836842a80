import type { ReactNode } from 'react';
import { Dialog } from './dialog.tsx';

/**
 * Asks before a destructive action (delete, revoke): Cancel first, so it has the focus and Enter
 * alone never destroys; the action's button says it is under way; the server's refusal shows in
 * the dialog.
 */
export function ConfirmDialog(props: {
  title: string;
  description: ReactNode;
  /** The action's button, e.g. `Delete`, and what it says while under way, e.g. `Deleting…`. */
  action: string;
  pendingAction: string;
  pending: boolean;
  onConfirm: () => void;
  problem: string | null;
  onClose: () => void;
}) {
  return (
    <Dialog
      alert
      title={props.title}
      description={props.description}
      onClose={props.onClose}
      buttons={(close) => (
        <>
          <button type="button" className="button button-secondary" onClick={close}>
            Cancel
          </button>
          <button
            type="button"
            className="button button-danger"
            disabled={props.pending}
            onClick={props.onConfirm}
          >
            {props.pending ? props.pendingAction : props.action}
          </button>
        </>
      )}
    >
      {props.problem && (
        <p className="form-error" role="alert">
          {props.problem}
        </p>
      )}
    </Dialog>
  );
}
