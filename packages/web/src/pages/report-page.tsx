import { useGetReport } from '@tessera/client/react';
import { Link, useParams } from 'react-router';
import { idParam } from '../layout/deployment.ts';
import { Card, DateText, PageHeader } from '../layout/page.tsx';
import { ErrorState, LoadingState } from '../layout/states.tsx';
import { folderCrumbs } from './workbook-page.tsx';

/** `/workspace/:deploymentId/reports/:reportId`: what a report is and what it asks of the data. */
export function ReportPage() {
  const params = useParams();
  const deploymentId = idParam(params.deploymentId);
  const reportId = idParam(params.reportId);
  if (deploymentId === null || reportId === null) {
    return <ErrorState title="Not found" message="This address does not name a report." />;
  }
  return <ReportView key={`${deploymentId}/${reportId}`} deploymentId={deploymentId} reportId={reportId} />;
}

function ReportView({ deploymentId, reportId }: { deploymentId: number; reportId: number }) {
  const report = useGetReport({ params: { path: { deploymentId, reportId } } });
  if (report.isPending) return <LoadingState label="Loading the report…" />;
  if (report.isError) {
    return (
      <>
        <PageHeader title="Report" breadcrumbs={[{ label: 'Workspace', to: `/workspace/${deploymentId}` }]} />
        <ErrorState
          title="This report could not be opened"
          error={report.error}
          onRetry={() => void report.refetch()}
        />
      </>
    );
  }
  const r = report.data;
  const access = r.canManage ? 'You can manage it' : r.canEdit ? 'You can edit it' : 'You can view it';
  const owner = r.user ? r.user.firstName || r.user.email : null;
  return (
    <>
      <PageHeader
        title={r.title || r.name}
        subtitle={
          <>
            Report{owner ? ` · owned by ${owner}` : ''} · updated <DateText value={r.updatedAt} />
          </>
        }
        breadcrumbs={folderCrumbs(deploymentId, r.folderPath, r.title || r.name)}
      />
      <div className="grid-2">
        <Card title="About">
          {r.description ? <p>{r.description}</p> : <p className="muted">No description.</p>}
          <dl className="details">
            <dt>Name</dt>
            <dd>{r.name}</dd>
            <dt>Kind</dt>
            <dd>{r.kind}</dd>
            <dt>Version</dt>
            <dd>{r.version}</dd>
            <dt>Access</dt>
            <dd>{access}</dd>
            {r.workbookId !== null && (
              <>
                <dt>Workbook</dt>
                <dd>
                  <Link to={`/workspace/${deploymentId}/workbooks/${r.workbookId}`}>Open the workbook</Link>
                </dd>
              </>
            )}
          </dl>
        </Card>
        <Card title="Query">
          {r.sqlQuery ? (
            <pre className="code">{r.sqlQuery}</pre>
          ) : r.jsonQuery ? (
            <pre className="code">{r.jsonQuery}</pre>
          ) : (
            <p className="muted">This report has no query yet.</p>
          )}
        </Card>
      </div>
    </>
  );
}
