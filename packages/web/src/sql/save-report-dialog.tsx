import { useCreateReport } from '@tessera/client/react';
import { type FormEvent, useState } from 'react';
import { DestinationField, destinationFields, workspaceRoot } from '../reports/save-destination.tsx';
import type { ColumnFormat, Table } from '../results/index.ts';
import { Dialog } from '../ui/dialog.tsx';
import { Field } from '../ui/field.tsx';
import { noProblems, type Problems, problemsOf } from '../ui/problems.ts';

export interface SavedReport {
  id: number;
  name: string;
}

/**
 * Saves the query as a report (`POST .../reports` with `sqlQuery`, spec 2.3's report snapshot):
 * its chart's Vega-Lite spec (no data) and, for columns the model formats as money or percent,
 * column formats, so that the report page reads its numbers as the editor does. The server
 * checks the fields; its problems show beside them.
 */
export function SaveReportDialog({
  deploymentId,
  sql,
  table,
  spec,
  onSaved,
  onClose,
}: {
  deploymentId: number;
  sql: string;
  table: Table | null;
  spec: Record<string, unknown> | null;
  onSaved: (report: SavedReport) => void;
  onClose: () => void;
}) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [destination, setDestination] = useState(workspaceRoot);
  const [problems, setProblems] = useState<Problems>(noProblems);
  const create = useCreateReport({
    onSuccess: (report) => onSaved({ id: report.id, name: report.title || report.name }),
    onError: (error) => setProblems(problemsOf(error)),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblems(noProblems);
    const columnFormats = table ? formatsOf(table) : {};
    create.mutate({
      params: { path: { deploymentId } },
      body: {
        name: name.trim(),
        description: description.trim() || null,
        sqlQuery: sql,
        spec,
        preferences: Object.keys(columnFormats).length > 0 ? { columnFormats } : null,
        ...destinationFields(destination),
      },
    });
  };
  return (
    <Dialog
      title="Save as report"
      description="The query, its chart and its column formats are saved as a report, in the workspace root, a folder or a workbook."
      onClose={onClose}
      onSubmit={submit}
      buttons={(close) => (
        <>
          <button type="button" className="button button-secondary" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={create.isPending}>
            {create.isPending ? 'Saving…' : 'Save'}
          </button>
        </>
      )}
    >
      <Field label="Name" value={name} onChange={setName} problem={problems.fields.name} autoFocus />
      <Field
        label="Description"
        value={description}
        onChange={setDescription}
        problem={problems.fields.description}
        multiline
      />
      <DestinationField
        deploymentId={deploymentId}
        value={destination}
        onChange={setDestination}
        problem={problems.fields.folderId ?? problems.fields.workbookId}
      />
      {(problems.fields.sqlQuery || problems.fields.spec) && (
        <p className="form-error" role="alert">
          {problems.fields.sqlQuery
            ? `The query: ${problems.fields.sqlQuery}`
            : `The chart: ${problems.fields.spec}`}
        </p>
      )}
      {problems.other && (
        <p className="form-error" role="alert">
          It could not be saved: {problems.other}
        </p>
      )}
    </Dialog>
  );
}

/** The model's money and percent formats of the result's columns, as report column formats. */
function formatsOf(table: Table): Record<string, ColumnFormat> {
  const formats: Record<string, ColumnFormat> = {};
  for (const column of table.columns)
    if (column.format === 'currency' || column.format === 'percent')
      formats[column.name] = { type: column.format };
  return formats;
}
