import { useUpdateWorkbook } from '@tessera/client/react';
import { type FormEvent, useId, useState } from 'react';
import { useModalDialog } from '../ui/modal.ts';
import { creatorMessageOf as messageOf } from './session.ts';

/** The longest workbook name the server takes (`itemName` in modules/workspace/common.ts). */
const maxNameLength = 255;

/**
 * Renames a dashboard the creator owns (issue 12): `PUT .../workbooks/{id}` with its new name,
 * which needs edit access; the team list re-reads the workbooks and shows the new name.
 */
export function RenameDialog(props: {
  deploymentId: number;
  workbookId: number;
  name: string;
  onRenamed: (name: string) => void;
  onClose: () => void;
}) {
  const dialog = useModalDialog();
  const headingId = useId();
  const inputId = useId();
  const [name, setName] = useState(props.name);
  const [problem, setProblem] = useState<string | null>(null);
  const update = useUpdateWorkbook({
    onSuccess: (workbook) => {
      props.onRenamed(workbook.name);
      dialog.current?.close();
    },
    onError: (error) => setProblem(`It could not be renamed: ${messageOf(error)}`),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const wanted = name.trim();
    if (wanted === '') return setProblem('Enter a name.');
    if (wanted.length > maxNameLength) return setProblem(`A name has at most ${maxNameLength} characters.`);
    setProblem(null);
    update.mutate({
      params: { path: { deploymentId: props.deploymentId, workbookId: props.workbookId } },
      body: { name: wanted },
    });
  };

  return (
    <dialog ref={dialog} className="embed-share-dialog" aria-labelledby={headingId} onClose={props.onClose}>
      <form onSubmit={submit} noValidate>
        <h2 id={headingId}>Rename “{props.name}”</h2>
        <label htmlFor={inputId} className="embed-dialog-label">
          Name
        </label>
        <input
          id={inputId}
          className="embed-dialog-input"
          value={name}
          onChange={(event) => setName(event.target.value)}
          aria-invalid={problem !== null}
          aria-describedby={problem ? `${inputId}-problem` : undefined}
        />
        {problem && (
          <p id={`${inputId}-problem`} className="form-error" role="alert">
            {problem}
          </p>
        )}
        <div className="embed-share-buttons">
          <button type="button" className="button button-secondary" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={update.isPending}>
            {update.isPending ? 'Renaming…' : 'Rename'}
          </button>
        </div>
      </form>
    </dialog>
  );
}
