import { useIsFetching } from '@tanstack/react-query';
import { useGetWorkbook, useGetWorkbooks } from '@tessera/client/react';
import { useId } from 'react';

/**
 * "Your team's dashboards" (issue 12): the published dashboards of the workbooks a creator-mode
 * user can see in its embed tenant's space (its own, those shared with its tenant groups, those
 * the account shared with its tenant). The list answers only what the server lets this token read
 * (`GET .../workbooks`); each entry opens in this embed page, with the same token.
 */
export function TeamDashboards(props: {
  deploymentId: number;
  currentPublicId: string;
  onOpen: (publicId: string) => void;
}) {
  const headingId = useId();
  const workbooks = useGetWorkbooks({
    params: { path: { deploymentId: props.deploymentId }, query: { first: 100 } },
  });
  const items = workbooks.data?.items ?? [];
  // Busy while the list or any entry's single read is in flight (the keys of hooks.ts), so that a
  // screen reader, and a test, can tell a complete list from one still arriving.
  const fetching =
    useIsFetching({ queryKey: ['/api/v1/deployments/{deploymentId}/workbooks'] }) +
    useIsFetching({ queryKey: ['/api/v1/deployments/{deploymentId}/workbooks/{workbookId}'] });
  return (
    <nav className="embed-team" aria-labelledby={headingId} aria-busy={fetching > 0}>
      <h2 id={headingId}>Your team's dashboards</h2>
      {workbooks.isPending && <p className="embed-status-inline">Loading…</p>}
      {workbooks.error && <p className="embed-status-inline">The list could not be read.</p>}
      {workbooks.data && items.length === 0 && (
        <p className="embed-status-inline">Nothing yet. Save a copy of a dashboard to start.</p>
      )}
      {items.length > 0 && (
        <ul>
          {items.map((w) => (
            <TeamDashboard key={w.id} {...props} workbookId={w.id} />
          ))}
        </ul>
      )}
    </nav>
  );
}

/** One workbook's entry: its published dashboard (the list omits it; the single read has it), or nothing. */
function TeamDashboard(props: {
  deploymentId: number;
  workbookId: number;
  currentPublicId: string;
  onOpen: (publicId: string) => void;
}) {
  const workbook = useGetWorkbook({
    params: { path: { deploymentId: props.deploymentId, workbookId: props.workbookId } },
  });
  const published = workbook.data?.publishedDashboard;
  if (!workbook.data || !published) return null;
  const current = published.publicId === props.currentPublicId;
  return (
    <li>
      <button
        type="button"
        className="embed-team-item"
        aria-current={current ? 'page' : undefined}
        onClick={() => props.onOpen(published.publicId)}
      >
        {workbook.data.name}
      </button>
    </li>
  );
}
