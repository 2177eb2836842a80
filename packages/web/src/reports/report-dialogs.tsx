import { useQueryClient } from '@tanstack/react-query';
import {
  useDeleteReport,
  useGetFolders,
  useGetWorkbooks,
  useMoveWorkspaceObject,
  useUpdateReport,
} from '@tessera/client/react';
import { type FormEvent, useId, useState } from 'react';
import { describeError } from '../api/errors.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { Field } from '../ui/field.tsx';
import { noProblems, type Problems, problemsOf } from '../ui/problems.ts';

/** The report as its dialogs need it. */
export interface ReportItem {
  id: number;
  name: string;
  title: string | null;
  description: string | null;
  folderId: number | null;
  workbookId: number | null;
}

interface DialogProps {
  deploymentId: number;
  report: ReportItem;
  /** Says what happened, in the page's status line. */
  onDone: (message: string) => void;
  onClose: () => void;
}

/**
 * Renames a report and edits its title and description: `PUT .../reports/{id}` (edit access). The
 * server checks the fields; its problems show beside the fields they are about.
 */
export function EditReportDialog({ deploymentId, report, onDone, onClose }: DialogProps) {
  const [name, setName] = useState(report.name);
  const [title, setTitle] = useState(report.title ?? '');
  const [description, setDescription] = useState(report.description ?? '');
  const [problems, setProblems] = useState<Problems>(noProblems);
  const update = useUpdateReport({
    onSuccess: (saved) => onDone(`Saved “${saved.title || saved.name}”.`),
    onError: (error) => setProblems(problemsOf(error)),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblems(noProblems);
    update.mutate({
      params: { path: { deploymentId, reportId: report.id } },
      body: { name: name.trim(), title: title.trim() || null, description: description.trim() || null },
    });
  };
  return (
    <Dialog
      title="Edit report"
      onClose={onClose}
      onSubmit={submit}
      buttons={(close) => (
        <>
          <button type="button" className="button button-secondary" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={update.isPending}>
            {update.isPending ? 'Saving…' : 'Save'}
          </button>
        </>
      )}
    >
      <Field label="Name" value={name} onChange={setName} problem={problems.fields.name} autoFocus />
      <Field label="Title" value={title} onChange={setTitle} problem={problems.fields.title} />
      <Field
        label="Description"
        value={description}
        onChange={setDescription}
        problem={problems.fields.description}
        multiline
      />
      {problems.other && (
        <p className="form-error" role="alert">
          It could not be saved: {problems.other}
        </p>
      )}
    </Dialog>
  );
}

/**
 * Moves a report (spec 4.2): into a folder or the workspace root with `POST .../workspace/move`
 * (edit access to the report), or into a workbook with `PUT .../reports/{id}` and its `workbookId`.
 * The server applies the rules; its refusal is shown in the dialog.
 */
export function MoveReportDialog({ deploymentId, report, onDone, onClose }: DialogProps) {
  const folders = useGetFolders({ params: { path: { deploymentId } } });
  const workbooks = useGetWorkbooks({ params: { path: { deploymentId } } });
  const [target, setTarget] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const selectId = useId();
  const onError = (error: unknown) => setProblem(`It could not be moved: ${describeError(error)}`);
  const queryClient = useQueryClient();
  // The move answers the workspace item (spec 4.2), not the report: its page reads it again, with
  // its new folder path.
  const onSuccess = () =>
    queryClient.invalidateQueries({ queryKey: ['/api/v1/deployments/{deploymentId}/reports/{reportId}'] });
  const move = useMoveWorkspaceObject({ onError, onSuccess });
  const update = useUpdateReport({ onError });
  const pending = move.isPending || update.isPending;
  const folderList = folders.data?.data ?? [];
  const workbookList = workbooks.data?.data ?? [];

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblem(null);
    const [kind, raw] = target.split(':');
    if (!kind) return setProblem('Choose where to move it.');
    const id = raw === 'root' ? null : Number(raw);
    if (kind === 'folder') {
      const where = id === null ? 'the workspace root' : folderList.find((f) => f.id === id)?.name;
      move.mutate(
        { params: { path: { deploymentId } }, body: { type: 'REPORT', id: report.id, folderId: id } },
        { onSuccess: () => onDone(`Moved to ${where ?? 'the folder'}.`) },
      );
    } else {
      const where = id === null ? null : workbookList.find((w) => w.id === id)?.name;
      update.mutate(
        { params: { path: { deploymentId, reportId: report.id } }, body: { workbookId: id } },
        { onSuccess: () => onDone(where ? `Moved to the workbook ${where}.` : 'Taken out of its workbook.') },
      );
    }
  };
  return (
    <Dialog
      title={`Move “${report.title || report.name}”`}
      onClose={onClose}
      onSubmit={submit}
      buttons={(close) => (
        <>
          <button type="button" className="button button-secondary" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={pending}>
            {pending ? 'Moving…' : 'Move'}
          </button>
        </>
      )}
    >
      <div className="field">
        <label htmlFor={selectId}>Destination</label>
        <select
          id={selectId}
          value={target}
          onChange={(e) => setTarget(e.target.value)}
          aria-invalid={problem !== null}
          aria-describedby={problem ? `${selectId}-problem` : undefined}
          // biome-ignore lint/a11y/noAutofocus: the dialog's one choice
          autoFocus
        >
          <option value="">Choose a folder or a workbook…</option>
          <optgroup label="Folders">
            <option value="folder:root" disabled={report.folderId === null}>
              Workspace root
            </option>
            {folderList.map((f) => (
              <option key={f.id} value={`folder:${f.id}`} disabled={f.id === report.folderId}>
                {f.name}
              </option>
            ))}
          </optgroup>
          <optgroup label="Workbooks">
            {report.workbookId !== null && <option value="workbook:root">No workbook</option>}
            {workbookList.map((w) => (
              <option key={w.id} value={`workbook:${w.id}`} disabled={w.id === report.workbookId}>
                {w.name}
              </option>
            ))}
          </optgroup>
        </select>
        {problem && (
          <p id={`${selectId}-problem`} className="field-error" role="alert">
            {problem}
          </p>
        )}
      </div>
    </Dialog>
  );
}

/**
 * Asks before deleting a report: `DELETE .../reports/{id}` (manage access). Cancel comes first
 * and so has the focus, so that Enter alone never deletes.
 */
export function DeleteReportDialog({
  deploymentId,
  report,
  onDeleted,
  onClose,
}: Omit<DialogProps, 'onDone'> & { onDeleted: () => void }) {
  const [problem, setProblem] = useState<string | null>(null);
  const remove = useDeleteReport({
    onSuccess: () => onDeleted(),
    onError: (error) => setProblem(`It could not be deleted: ${describeError(error)}`),
  });
  return (
    <ConfirmDialog
      title={`Delete “${report.title || report.name}”?`}
      description="The report goes for everyone who can see it, and dashboards showing it lose that tile. This cannot be undone."
      action="Delete"
      pendingAction="Deleting…"
      pending={remove.isPending}
      onConfirm={() => {
        setProblem(null);
        remove.mutate({ params: { path: { deploymentId, reportId: report.id } } });
      }}
      problem={problem}
      onClose={onClose}
    />
  );
}
