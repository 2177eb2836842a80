import { useGetFolders, useGetWorkbooks } from '@tessera/client/react';
import { useId } from 'react';

/** Where a new report goes: `folder:root`, `folder:<id>` or `workbook:<id>`. */
export type Destination = string;
export const workspaceRoot: Destination = 'folder:root';

/** The report body's fields for a destination (`folderId`, `workbookId`; spec 2.3). */
export function destinationFields(destination: Destination): {
  folderId: number | null;
  workbookId: number | null;
} {
  const [kind, raw] = destination.split(':');
  const id = raw === 'root' ? null : Number(raw);
  return { folderId: kind === 'folder' ? id : null, workbookId: kind === 'workbook' ? id : null };
}

/**
 * "Save in": the workspace root, a folder or a workbook of the deployment, for the save dialogs
 * of Explore and the SQL editor. The server's problem with the choice shows beside it.
 */
export function DestinationField({
  deploymentId,
  value,
  onChange,
  problem,
}: {
  deploymentId: number;
  value: Destination;
  onChange: (destination: Destination) => void;
  problem?: string;
}) {
  const id = useId();
  const folders = useGetFolders({ params: { path: { deploymentId } } });
  const workbooks = useGetWorkbooks({ params: { path: { deploymentId } } });
  const workbookList = workbooks.data?.data ?? [];
  return (
    <div className="field">
      <label htmlFor={id}>Save in</label>
      <select
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={problem !== undefined}
        aria-describedby={problem ? `${id}-problem` : undefined}
      >
        <optgroup label="Folders">
          <option value={workspaceRoot}>Workspace root</option>
          {(folders.data?.data ?? []).map((f) => (
            <option key={f.id} value={`folder:${f.id}`}>
              {f.name}
            </option>
          ))}
        </optgroup>
        {workbookList.length > 0 && (
          <optgroup label="Workbooks">
            {workbookList.map((w) => (
              <option key={w.id} value={`workbook:${w.id}`}>
                {w.name}
              </option>
            ))}
          </optgroup>
        )}
      </select>
      {problem && (
        <p id={`${id}-problem`} className="field-error">
          {problem}
        </p>
      )}
    </div>
  );
}
