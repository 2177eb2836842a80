import { useQueries } from '@tanstack/react-query';
import { unwrap } from '@tessera/client';
import { apiQueryKey, useClient, useGetWorkbooks } from '@tessera/client/react';
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { idParam } from '../layout/deployment.ts';
import { DashboardIcon } from '../layout/icons.tsx';
import { DateText, PageHeader } from '../layout/page.tsx';
import { ShowMoreItem } from '../layout/show-more-item.tsx';
import { EmptyState, ErrorState, LoadingState } from '../layout/states.tsx';

const workbookPath = '/api/v1/deployments/{deploymentId}/workbooks/{workbookId}';
/** Workbooks per page here: each is read once more for its published dashboard. */
const dashboardsPageSize = 24;

/**
 * `/dashboards/:deploymentId`: the published dashboards (spec 2.3) of the workbooks the caller can
 * view, one card per workbook, read a page of workbooks at a time.
 */
export function DashboardsPage() {
  const deploymentId = idParam(useParams().deploymentId);
  if (deploymentId === null) {
    return <ErrorState title="Not found" message="This address does not name a deployment." />;
  }
  return <DashboardsView key={deploymentId} deploymentId={deploymentId} />;
}

function DashboardsView({ deploymentId }: { deploymentId: number }) {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [found, setFound] = useState<Record<number, number>>({});
  const allLoaded = Object.keys(found).length === cursors.length;
  const total = Object.values(found).reduce((a, b) => a + b, 0);
  return (
    <>
      <PageHeader title="Dashboards" subtitle="Published dashboards of the workbooks you can view." />
      {allLoaded && total === 0 && cursors.length === 1 && (
        <EmptyState title="No published dashboards">
          A workbook's dashboard appears here once it is published. Open a workbook from the{' '}
          <Link to={`/workspace/${deploymentId}`}>workspace</Link> to see its draft.
        </EmptyState>
      )}
      <ul className="dashboard-grid">
        {cursors.map((after, index) => (
          <DashboardCards
            key={after ?? 'first'}
            deploymentId={deploymentId}
            after={after}
            isLast={index === cursors.length - 1}
            onCount={(n) => setFound((f) => (f[index] === n ? f : { ...f, [index]: n }))}
            onMore={(next) => setCursors((c) => [...c, next])}
          />
        ))}
      </ul>
    </>
  );
}

function DashboardCards(props: {
  deploymentId: number;
  after?: string;
  isLast: boolean;
  onCount: (n: number) => void;
  onMore: (cursor: string) => void;
}) {
  const { deploymentId, after, onCount } = props;
  const client = useClient();
  const workbooks = useGetWorkbooks({
    params: { path: { deploymentId }, query: { first: dashboardsPageSize, ...(after ? { after } : {}) } },
  });
  // The list leaves the published dashboard out (it is large): each workbook's own read has it, with
  // the same cache key as the generated hook, so the workbook page opens from the cache.
  const reads = useQueries({
    queries: (workbooks.data?.items ?? []).map((wb) => {
      const init = { params: { path: { deploymentId, workbookId: wb.id } } };
      return {
        queryKey: apiQueryKey(workbookPath, init),
        queryFn: async ({ signal }: { signal: AbortSignal }) =>
          unwrap(await client.GET(workbookPath, { ...init, signal })),
      };
    }),
  });
  const settled = workbooks.data !== undefined && reads.every((r) => !r.isPending);
  const published = reads.flatMap((r) => (r.data?.publishedDashboard ? [r.data] : []));
  const failed = reads.filter((r) => r.isError).length;
  useEffect(() => {
    if (settled) onCount(published.length);
  }, [settled, published.length, onCount]);
  if (workbooks.isError)
    return (
      <li className="dashboard-grid-wide">
        <ErrorState
          title="The dashboards could not be loaded"
          error={workbooks.error}
          onRetry={() => void workbooks.refetch()}
        />
      </li>
    );
  if (!settled)
    return (
      <li className="dashboard-grid-wide">
        <LoadingState label="Loading dashboards…" />
      </li>
    );
  const { pageInfo } = workbooks.data;
  return (
    <>
      {published.map((wb) => {
        const dashboard = wb.publishedDashboard!;
        return (
          <li key={wb.id} className="dashboard-card">
            <Link to={`/dashboards/${deploymentId}/${dashboard.publicId}`} className="dashboard-card-link">
              <DashboardIcon className="dashboard-card-icon" />
              <span className="dashboard-card-title">{dashboard.title || wb.name}</span>
            </Link>
            {dashboard.description && <p className="dashboard-card-text">{dashboard.description}</p>}
            <p className="meta-line">
              {wb.name} · version {dashboard.versionNumber} · <DateText value={wb.updatedAt} />
            </p>
          </li>
        );
      })}
      {failed > 0 && (
        <li className="dashboard-grid-wide">
          <ErrorState
            title="Some workbooks could not be read"
            message={`${failed} workbook${failed === 1 ? '' : 's'} did not answer; their dashboards are not shown.`}
            onRetry={() => {
              for (const r of reads) if (r.isError) void r.refetch();
            }}
          />
        </li>
      )}
      {props.isLast && (
        <ShowMoreItem pageInfo={pageInfo} onMore={props.onMore} className="dashboard-grid-wide" />
      )}
    </>
  );
}
