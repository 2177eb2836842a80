import { useDeleteWorkbook } from '@tessera/client/react';
import { useId, useState } from 'react';
import { useModalDialog } from '../ui/modal.ts';
import { creatorMessageOf as messageOf } from './session.ts';

/**
 * Asks before deleting a dashboard the creator owns (issue 12): `DELETE .../workbooks/{id}` takes
 * the workbook and its published dashboard, for everyone it was shared with, and needs manage
 * access. Cancel comes first and so has the focus, so that Enter alone never deletes.
 */
export function DeleteDialog(props: {
  deploymentId: number;
  workbookId: number;
  name: string;
  onDeleted: () => void;
  onClose: () => void;
}) {
  const dialog = useModalDialog();
  const headingId = useId();
  const [problem, setProblem] = useState<string | null>(null);
  const remove = useDeleteWorkbook({
    onSuccess: () => props.onDeleted(),
    onError: (error) => setProblem(`It could not be deleted: ${messageOf(error)}`),
  });
  return (
    <dialog
      ref={dialog}
      className="embed-share-dialog"
      role="alertdialog"
      aria-labelledby={headingId}
      aria-describedby={`${headingId}-what`}
      onClose={props.onClose}
    >
      <h2 id={headingId}>Delete “{props.name}”?</h2>
      <p id={`${headingId}-what`}>
        The dashboard goes for everyone you shared it with, and its address stops working. This cannot be
        undone.
      </p>
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      <div className="embed-share-buttons">
        {/* The first control of the dialog, so showModal() gives it the focus: the safe choice. */}
        <button type="button" className="button button-secondary" onClick={() => dialog.current?.close()}>
          Cancel
        </button>
        <button
          type="button"
          className="button button-danger"
          disabled={remove.isPending}
          onClick={() => {
            setProblem(null);
            remove.mutate({
              params: { path: { deploymentId: props.deploymentId, workbookId: props.workbookId } },
            });
          }}
        >
          {remove.isPending ? 'Deleting…' : 'Delete'}
        </button>
      </div>
    </dialog>
  );
}
