import { useGetDashboardVersions } from '@tessera/client/react';
import { useEffect, useId } from 'react';
import { Link } from 'react-router';
import { DateText } from '../../layout/page.tsx';

/**
 * The published versions (issue 23 item 2), newest first, with who published each and when:
 * open one (the viewer at that version) or make it the draft again.
 */
export function VersionsPanel(props: {
  deploymentId: number;
  workbookId: number;
  onRestore: (versionNumber: number) => void;
  restoring: boolean;
  /** Changes when a version was published from the editor: the list is read again. */
  published: number;
}) {
  const { deploymentId, workbookId } = props;
  const versions = useGetDashboardVersions(
    { params: { path: { deploymentId, workbookId }, query: { first: 1000 } } },
    { placeholderData: (previous) => previous },
  );
  const id = useId();
  const { refetch } = versions;
  useEffect(() => {
    if (props.published > 0) void refetch();
  }, [props.published, refetch]);
  const items = [...(versions.data?.items ?? [])].reverse();
  return (
    <section className="tsr-edit-panel" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Versions</h2>
      {versions.isError ? <p className="field-error">The versions could not be loaded.</p> : null}
      {versions.data && items.length === 0 ? <p className="tsr-edit-muted">Not published yet.</p> : null}
      <ol className="tsr-edit-list tsr-versions" reversed>
        {items.map((v) => {
          const who = v.createdByUser ? v.createdByUser.firstName || v.createdByUser.email : 'someone';
          return (
            <li key={v.versionId} data-version={v.versionNumber}>
              <div>
                <strong>
                  Version {v.versionNumber}
                  {v.status === 'published' ? ' (published)' : ''}
                </strong>
                <span className="tsr-edit-muted">
                  {' '}
                  {v.title ? `${v.title} · ` : ''}by {who}, <DateText value={v.createdAt} />
                </span>
              </div>
              <div className="tsr-edit-row">
                <Link
                  className="button"
                  to={`/workspace/${deploymentId}/workbooks/${workbookId}/versions/${v.versionNumber}`}
                  aria-label={`Open version ${v.versionNumber}`}
                >
                  Open
                </Link>
                <button
                  type="button"
                  className="button"
                  disabled={props.restoring}
                  onClick={() => props.onRestore(v.versionNumber)}
                  aria-label={`Restore version ${v.versionNumber} as the draft`}
                >
                  Restore
                </button>
              </div>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
