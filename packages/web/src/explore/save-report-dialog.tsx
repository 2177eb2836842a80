import { useCreateReport } from '@tessera/client/react';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { DestinationField, destinationFields, workspaceRoot } from '../reports/save-destination.tsx';
import type { Column, ColumnFormat, ColumnFormats } from '../results/table.ts';
import { Dialog } from '../ui/dialog.tsx';
import { Field } from '../ui/field.tsx';
import { noProblems, type Problems, problemsOf } from '../ui/problems.ts';

export interface SaveReportDialogProps {
  deploymentId: number;
  /** The query as the report stores it. */
  query: Record<string, unknown>;
  /** The quantity columns offered a format. */
  columns: Column[];
  /** The chart's spec for the chosen formats (no data), or null to show only the table. */
  specFor: (formats: ColumnFormats) => Record<string, unknown> | null;
  onSaved: (report: { id: number; name: string }) => void;
  onClose: () => void;
}

type FormatChoice = '' | ColumnFormat['type'];

/**
 * Saves the question as a report (`POST .../reports`): its name, description, where it goes (the
 * workspace root, a folder or a workbook), the format of each number column, and its chart.
 */
export function SaveReportDialog({
  deploymentId,
  query,
  columns,
  specFor,
  onSaved,
  onClose,
}: SaveReportDialogProps) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [target, setTarget] = useState(workspaceRoot);
  const [formats, setFormats] = useState<Record<string, { type: FormatChoice; places: string }>>(() =>
    Object.fromEntries(
      columns.map((c) => [
        c.name,
        { type: c.format === 'currency' || c.format === 'percent' ? c.format : '', places: '' },
      ]),
    ),
  );
  const [problems, setProblems] = useState<Problems>(noProblems);
  const create = useCreateReport({
    onSuccess: (saved) => onSaved({ id: saved.id, name: saved.name }),
    onError: (error) => setProblems(problemsOf(error)),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblems(noProblems);
    const columnFormats: ColumnFormats = {};
    for (const [column, f] of Object.entries(formats)) {
      if (!f.type) continue;
      const places = f.places.trim() === '' ? undefined : Number(f.places);
      columnFormats[column] = { type: f.type, ...(places !== undefined ? { decimalPlaces: places } : {}) };
    }
    const spec = specFor(columnFormats);
    create.mutate({
      params: { path: { deploymentId } },
      body: {
        name: name.trim(),
        description: description.trim() || null,
        jsonQuery: JSON.stringify(query),
        spec: spec ? JSON.stringify(spec) : null,
        preferences: Object.keys(columnFormats).length > 0 ? { columnFormats } : null,
        ...destinationFields(target),
      },
    });
  };
  const destinationProblem = problems.fields.folderId ?? problems.fields.workbookId;
  return (
    <Dialog
      title="Save as a report"
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
        value={target}
        onChange={setTarget}
        problem={destinationProblem}
      />
      {columns.length > 0 && (
        <fieldset className="ex-formats">
          <legend>Column formats</legend>
          {columns.map((c) => {
            const f = formats[c.name];
            const problem = problems.fields[`preferences/columnFormats/${c.name}/decimalPlaces`];
            return (
              <div key={c.name} className="ex-format-row">
                <span className="ex-format-name" title={c.name}>
                  {c.title}
                </span>
                <select
                  aria-label={`Format of ${c.title}`}
                  value={f.type}
                  onChange={(e) =>
                    setFormats({ ...formats, [c.name]: { ...f, type: e.target.value as FormatChoice } })
                  }
                >
                  <option value="">As the model says</option>
                  <option value="number">Number</option>
                  <option value="currency">Currency</option>
                  <option value="percent">Percent</option>
                </select>
                <input
                  aria-label={`Decimal places of ${c.title}`}
                  inputMode="numeric"
                  placeholder="decimals"
                  className="ex-format-places"
                  value={f.places}
                  disabled={!f.type}
                  aria-invalid={problem !== undefined}
                  onChange={(e) => setFormats({ ...formats, [c.name]: { ...f, places: e.target.value } })}
                />
                {problem && <p className="field-error">{problem}</p>}
              </div>
            );
          })}
        </fieldset>
      )}
      {problems.other && (
        <p className="form-error" role="alert">
          It could not be saved: {problems.other}
        </p>
      )}
    </Dialog>
  );
}

/** After a save: where the report is, as a link. */
export function SavedNotice({
  deploymentId,
  report,
  onDismiss,
}: {
  deploymentId: number;
  report: { id: number; name: string };
  onDismiss: () => void;
}) {
  return (
    <p className="notice ex-notice">
      Saved “{report.name}”.{' '}
      <Link to={`/workspace/${deploymentId}/reports/${report.id}`}>Open the report</Link>{' '}
      <button type="button" className="link-button" onClick={onDismiss}>
        Dismiss
      </button>
    </p>
  );
}
