import { useDuplicateWorkbook, useGetWorkbook, useListContentPermissions } from '@tessera/client/react';
import { useState } from 'react';
import { creatorMessageOf as messageOf } from './session.ts';
import { ShareDialog } from './share-dialog.tsx';

/**
 * The creator's actions over the open dashboard (issue 12; spec 4.3 rules 1 and 2), shown only to a
 * creator-mode session. "Save a copy" clones the dashboard's workbook from the shared workspace
 * (`POST .../workbooks/{id}/duplicate` with `shared: true`: built from the published dashboard,
 * published again, owned by this embed user in its tenant's space). "Share" grants one of the
 * tenant's groups view access to the open dashboard when the user may manage it.
 */
export function CreatorActions(props: {
  deploymentId: number;
  workbookId: number;
  embedTenantName: string;
  /** The token's embed user (its claim), to tell whether it owns the open dashboard. */
  embedUserId: number | undefined;
  /** Opens a dashboard in this page; null when the session is pinned to one dashboard. */
  onOpen: ((publicId: string) => void) | null;
  /** Says a copy was saved, by its name, in the page's status (which outlives this dashboard). */
  onSaved: (name: string) => void;
}) {
  const { deploymentId, workbookId, embedTenantName, onOpen, onSaved } = props;
  const path = { deploymentId, workbookId };
  const [sharing, setSharing] = useState(false);
  const duplicate = useDuplicateWorkbook({
    onSuccess: (copy) => {
      onSaved(copy.name);
      const publicId = copy.publishedDashboard?.publicId;
      if (publicId && onOpen) onOpen(publicId);
    },
  });
  // The workbook is readable when it is the tenant's own or shared with it; a dashboard that is only
  // embeddable (allowEmbed) has no workbook to copy or share, so the actions say nothing about it.
  const workbook = useGetWorkbook({ params: { path } });
  // Sharing needs manage access, which an embed user has on what it owns (its own grant): the
  // button shows only there, rather than on a dashboard it would be refused for.
  const grants = useListContentPermissions(
    { params: { path: { deploymentId }, query: { type: 'WORKBOOK', id: workbookId } } },
    { enabled: workbook.data !== undefined },
  );
  const owns = (grants.data?.items ?? []).some(
    (g) => props.embedUserId !== undefined && g.embedUserId === props.embedUserId && g.level === 'manage',
  );
  if (!workbook.data) return null;

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
          <button type="button" className="button button-primary" onClick={() => setSharing(true)}>
            Share
          </button>
        )}
      </fieldset>
      {duplicate.error && (
        <p className="form-error" role="alert">
          The copy could not be saved: {messageOf(duplicate.error)}
        </p>
      )}
      {sharing && (
        <ShareDialog
          deploymentId={deploymentId}
          workbookId={workbookId}
          title={workbook.data.name}
          embedTenantName={embedTenantName}
          onClose={() => setSharing(false)}
        />
      )}
    </div>
  );
}
