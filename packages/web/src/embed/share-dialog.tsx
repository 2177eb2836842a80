import {
  useGetEmbedGroups,
  useGetReports,
  useGrantContentPermission,
  useListContentPermissions,
} from '@tessera/client/react';
import { type FormEvent, useId, useRef, useState } from 'react';
import { useModalDialog } from '../ui/modal.ts';
import { creatorMessageOf as messageOf } from './session.ts';
import { CurrentShares } from './shares.tsx';

/**
 * Shares the open dashboard with one of the embed tenant's groups (issue 12; spec 4.3 rule 2).
 * The groups come from `GET /embed-tenants/{tenant}/groups`, which answers a creator with its own
 * tenant's groups only; a grant is `PUT .../permissions` with `embedGroupId`, at view level, on
 * the workbook and on each of its reports (the dashboard's widgets are read through them).
 * The groups it is shared with are listed above, each with a control that removes the share.
 * A native modal <dialog>: focus moves into it, Escape closes it, the page behind is inert.
 */
export function ShareDialog(props: {
  deploymentId: number;
  workbookId: number;
  title: string;
  embedTenantName: string;
  onClose: () => void;
}) {
  const { deploymentId, workbookId, embedTenantName, onClose } = props;
  const dialog = useModalDialog();
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const [groupId, setGroupId] = useState<number | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const groups = useGetEmbedGroups({ params: { path: { embedTenantName }, query: { first: 100 } } });
  const reports = useGetReports({ params: { path: { deploymentId }, query: { workbookId, first: 100 } } });
  const grant = useGrantContentPermission();
  // The groups that already see it (a grant on the workbook), re-read after each share.
  const grants = useListContentPermissions({
    params: { path: { deploymentId }, query: { type: 'WORKBOOK', id: workbookId } },
  });
  const sharedWith = new Set((grants.data?.items ?? []).map((g) => g.embedGroupId));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const group = groups.data?.items.find((g) => g.id === groupId);
    if (!group) return;
    setBusy(true);
    setFailure(null);
    setDone(null);
    try {
      const items = [
        { type: 'WORKBOOK' as const, id: workbookId },
        ...(reports.data?.items ?? []).map((r) => ({ type: 'REPORT' as const, id: r.id })),
      ];
      for (const item of items) {
        await grant.mutateAsync({
          params: { path: { deploymentId } },
          body: { ...item, embedGroupId: group.id, level: 'view' },
        });
      }
      setDone(`Shared with ${group.name}.`);
    } catch (error) {
      setFailure(`It could not be shared: ${messageOf(error as { status: number; body?: unknown })}`);
    } finally {
      setBusy(false);
    }
  };

  const list = groups.data?.items ?? [];
  return (
    <dialog ref={dialog} className="embed-share-dialog" aria-labelledby={headingId} onClose={onClose}>
      <form onSubmit={submit}>
        <h2 id={headingId} ref={heading} tabIndex={-1}>
          Share “{props.title}”
        </h2>
        {groups.isPending && <p className="embed-status-inline">Loading your team's groups…</p>}
        {groups.error && (
          <p className="form-error" role="alert">
            The groups could not be read: {messageOf(groups.error)}
          </p>
        )}
        {/* Once the groups are read, so that a share never shows a placeholder for its group's name. */}
        {groups.data && (
          <CurrentShares
            deploymentId={deploymentId}
            workbookId={workbookId}
            grants={grants.data?.items ?? []}
            groups={list}
            reportIds={(reports.data?.items ?? []).map((r) => r.id)}
            disabled={busy || reports.isPending}
            onRemoved={(group) => {
              setDone(`Stopped sharing with ${group}.`);
              // The removed entry's control had the focus: it stays in the dialog, on its title.
              heading.current?.focus();
            }}
          />
        )}
        {groups.data && list.length === 0 && (
          <p className="embed-status-inline">Your team has no groups to share with.</p>
        )}
        {list.length > 0 && (
          <fieldset className="embed-share-groups">
            <legend>Share with a group</legend>
            {list.map((g) => (
              <label key={g.id} className="embed-share-group">
                <input
                  type="radio"
                  name="group"
                  value={g.id}
                  checked={groupId === g.id}
                  onChange={() => setGroupId(g.id)}
                />
                <span>
                  <span className="embed-share-group-name">{g.name}</span>
                  {g.description && <span className="embed-share-group-description">{g.description}</span>}
                  {sharedWith.has(g.id) && <span className="embed-share-group-shared">Can view</span>}
                </span>
              </label>
            ))}
          </fieldset>
        )}
        <p className="embed-creator-status" role="status">
          {done}
        </p>
        {failure && (
          <p className="form-error" role="alert">
            {failure}
          </p>
        )}
        <div className="embed-share-buttons">
          <button type="button" className="button button-secondary" onClick={() => dialog.current?.close()}>
            {done ? 'Close' : 'Cancel'}
          </button>
          <button
            type="submit"
            className="button button-primary"
            disabled={groupId === null || busy || reports.isPending}
          >
            {busy ? 'Sharing…' : 'Share'}
          </button>
        </div>
      </form>
    </dialog>
  );
}
