import { useDeleteWorkbook } from '@tessera/client/react';
import { useState } from 'react';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { creatorMessageOf as messageOf } from './session.ts';

/**
 * Asks before deleting a dashboard the creator owns (issue 12): `DELETE .../workbooks/{id}` takes
 * the workbook and its published dashboard, for everyone it was shared with, and needs manage
 * access. The one ConfirmDialog (ui/): Cancel has the focus, so that Enter alone never deletes.
 */
export function DeleteDialog(props: {
  deploymentId: number;
  workbookId: number;
  name: string;
  onDeleted: () => void;
  onClose: () => void;
}) {
  const [problem, setProblem] = useState<string | null>(null);
  const remove = useDeleteWorkbook({
    onSuccess: () => props.onDeleted(),
    onError: (error) => setProblem(`It could not be deleted: ${messageOf(error)}`),
  });
  return (
    <ConfirmDialog
      title={`Delete “${props.name}”?`}
      description="The dashboard goes for everyone you shared it with, and its address stops working. This cannot be undone."
      action="Delete"
      pendingAction="Deleting…"
      pending={remove.isPending}
      onConfirm={() => {
        setProblem(null);
        remove.mutate({
          params: { path: { deploymentId: props.deploymentId, workbookId: props.workbookId } },
        });
      }}
      problem={problem}
      onClose={props.onClose}
    />
  );
}
