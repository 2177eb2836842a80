import { useQueryClient } from '@tanstack/react-query';
import {
  apiQueryKey,
  useDuplicateWorkbook,
  useGetWorkbook,
  useListContentPermissions,
} from '@tessera/client/react';
import { useState } from 'react';
import { DeleteDialog } from './delete-dialog.tsx';
import { RenameDialog } from './rename-dialog.tsx';
import { creatorMessageOf as messageOf } from './session.ts';
import { ShareDialog } from './share-dialog.tsx';

type Open = 'share' | 'rename' | 'delete' | null;

/**
 * The creator's actions over the open dashboard (issue 12; spec 4.3 rules 1 and 2), shown only to a
 * creator-mode session. "Save a copy" clones the dashboard's workbook from the shared workspace
 * (`POST .../workbooks/{id}/duplicate` with `shared: true`: built from the published dashboard,
 * published again, owned by this embed user in its tenant's space). On a dashboard the user owns,
 * "Share" grants (and removes) a tenant group's view access, "Rename" and "Delete" change the
 * workbook; the host's dashboards and those shared with the user only offer a copy.
 */
export function CreatorActions(props: {
  deploymentId: number;
  workbookId: number;
  /** The open dashboard's public id: its read is dropped from the cache when it is deleted. */
  publicId: string;
  embedTenantName: string;
  /** The token's embed user (its claim), to tell whether it owns the open dashboard. */
  embedUserId: number | undefined;
  /** Opens a dashboard in this page; null when the session is pinned to one dashboard. */
  onOpen: ((publicId: string) => void) | null;
  /** Says what an action did in the page's status (which outlives this dashboard). */
  /** Says what an action did, on the page of `publicId` (default: this dashboard's). */
  onAnnounce: (text: string, publicId?: string) => void;
}) {
  const { deploymentId, workbookId, embedTenantName, onOpen, onAnnounce } = props;
  const path = { deploymentId, workbookId };
  const queryClient = useQueryClient();
  const [open, setOpen] = useState<Open>(null);
  const duplicate = useDuplicateWorkbook({
    onSuccess: (copy) => {
      const publicId = copy.publishedDashboard?.publicId;
      const opens = publicId !== undefined && onOpen !== null;
      // Said on the copy's page when the copy opens; on this one otherwise.
      onAnnounce(`Saved “${copy.name}” to your team's space.`, opens ? publicId : undefined);
      if (opens) onOpen(publicId);
    },
  });
  // The workbook is readable when it is the tenant's own or shared with it; a dashboard that is only
  // embeddable (allowEmbed) has no workbook to copy or share, so the actions say nothing about it.
  const workbook = useGetWorkbook({ params: { path } });
  // Sharing, renaming and deleting need edit or manage access, which an embed user has on what it
  // owns (its own manage grant): the buttons show only there, rather than on a dashboard it would
  // be refused for. The server decides in any case (creator-mode.test.ts).
  const grants = useListContentPermissions(
    { params: { path: { deploymentId }, query: { type: 'WORKBOOK', id: workbookId } } },
    { enabled: workbook.data !== undefined },
  );
  const owns = (grants.data?.items ?? []).some(
    (g) => props.embedUserId !== undefined && g.embedUserId === props.embedUserId && g.level === 'manage',
  );
  if (!workbook.data) return null;
  const name = workbook.data.name;

  return (
    <div className="embed-creator-actions">
      <fieldset className="embed-creator-buttons" aria-label="Creator actions">
        <button
          type="button"
          className="button button-secondary"
          disabled={duplicate.isPending}
          onClick={() => {
            duplicate.mutate({ params: { path }, body: { shared: true } });
          }}
        >
          {duplicate.isPending ? 'Saving…' : 'Save a copy'}
        </button>
        {owns && (
          <>
            <button type="button" className="button button-primary" onClick={() => setOpen('share')}>
              Share
            </button>
            <button type="button" className="button button-secondary" onClick={() => setOpen('rename')}>
              Rename
            </button>
            <button type="button" className="button button-quiet" onClick={() => setOpen('delete')}>
              Delete
            </button>
          </>
        )}
      </fieldset>
      {duplicate.error && (
        <p className="form-error" role="alert">
          The copy could not be saved: {messageOf(duplicate.error)}
        </p>
      )}
      {open === 'share' && (
        <ShareDialog
          deploymentId={deploymentId}
          workbookId={workbookId}
          title={name}
          embedTenantName={embedTenantName}
          onClose={() => setOpen(null)}
        />
      )}
      {open === 'rename' && (
        <RenameDialog
          deploymentId={deploymentId}
          workbookId={workbookId}
          name={name}
          onRenamed={(renamed) => onAnnounce(`Renamed “${name}” to “${renamed}”.`)}
          onClose={() => setOpen(null)}
        />
      )}
      {open === 'delete' && (
        <DeleteDialog
          deploymentId={deploymentId}
          workbookId={workbookId}
          name={name}
          onDeleted={() => {
            onAnnounce(`Deleted “${name}”.`);
            // Its address now answers "not found": read it again, so that the page says so here and
            // when Back or Forward return to it.
            void queryClient.invalidateQueries({
              queryKey: apiQueryKey('/api/v1/embed/dashboard/{publicId}', {
                params: { path: { publicId: props.publicId } },
              }),
            });
          }}
          onClose={() => setOpen(null)}
        />
      )}
    </div>
  );
}
