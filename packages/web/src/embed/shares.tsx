import { unwrap } from '@tessera/client';
import { useClient, useRevokeContentPermission } from '@tessera/client/react';
import { useId, useState } from 'react';
import { creatorMessageOf as messageOf } from './session.ts';

interface Grant {
  id: number;
  embedGroupId: number | null;
}

/**
 * The tenant groups a dashboard is shared with, each with a control that removes the share
 * (issue 12). A share is a view grant on the workbook and on each of its reports (share-dialog.tsx),
 * so removing it revokes the reports' grants first and the workbook's last: if a step fails, the
 * share stays listed and can be removed again, rather than leave reports readable unseen.
 */
export function CurrentShares(props: {
  deploymentId: number;
  workbookId: number;
  grants: Grant[];
  groups: { id: number; name: string }[];
  reportIds: number[];
  disabled: boolean;
  /** Told once the share is gone; the control that had the focus goes with it. */
  onRemoved: (groupName: string) => void;
}) {
  const { deploymentId } = props;
  const client = useClient();
  const revoke = useRevokeContentPermission();
  const headingId = useId();
  const [removing, setRemoving] = useState<number | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const nameOf = (groupId: number) => props.groups.find((g) => g.id === groupId)?.name ?? `group ${groupId}`;
  const shares = props.grants.filter((g): g is Grant & { embedGroupId: number } => g.embedGroupId !== null);
  if (shares.length === 0) return null;

  const remove = async (share: Grant & { embedGroupId: number }) => {
    const name = nameOf(share.embedGroupId);
    setRemoving(share.embedGroupId);
    setFailure(null);
    try {
      for (const reportId of props.reportIds) {
        const grants = unwrap(
          await client.GET('/api/v1/deployments/{deploymentId}/permissions', {
            params: { path: { deploymentId }, query: { type: 'REPORT', id: reportId } },
          }),
        );
        for (const grant of grants.items.filter((g) => g.embedGroupId === share.embedGroupId))
          await revoke.mutateAsync({ params: { path: { deploymentId, permissionId: grant.id } } });
      }
      await revoke.mutateAsync({ params: { path: { deploymentId, permissionId: share.id } } });
      props.onRemoved(name);
    } catch (error) {
      setFailure(
        `The share with ${name} could not be removed: ${messageOf(error as { status: number; body?: unknown })}`,
      );
    } finally {
      setRemoving(null);
    }
  };

  return (
    <section className="embed-share-current" aria-labelledby={headingId}>
      <h3 id={headingId}>Shared with</h3>
      <ul>
        {shares.map((share) => {
          const name = nameOf(share.embedGroupId);
          return (
            <li key={share.id}>
              <span className="embed-share-group-name">{name}</span>
              <button
                type="button"
                className="embed-share-remove"
                aria-label={`Stop sharing with ${name}`}
                disabled={props.disabled || removing !== null}
                onClick={() => void remove(share)}
              >
                {removing === share.embedGroupId ? 'Removing…' : 'Remove'}
              </button>
            </li>
          );
        })}
      </ul>
      {failure && (
        <p className="form-error" role="alert">
          {failure}
        </p>
      )}
    </section>
  );
}
