import { useClient, useGetDashboardVersion } from '@tessera/client/react';
import { Link, useParams } from 'react-router';
import { idParam } from '../../layout/deployment.ts';
import { ErrorState, LoadingState } from '../../layout/states.tsx';
import { DashboardView } from '../dashboard-view.tsx';

/**
 * `/workspace/:deploymentId/workbooks/:workbookId/versions/:versionNumber`: one published version
 * (issue 23 item 2, "open any version") in the viewer, its widgets reading that version's snapshots.
 */
export function DashboardVersionPage() {
  const params = useParams();
  const deploymentId = idParam(params.deploymentId);
  const workbookId = idParam(params.workbookId);
  const versionNumber = idParam(params.versionNumber);
  const client = useClient();
  const ok = deploymentId !== null && workbookId !== null && versionNumber !== null;
  const read = useGetDashboardVersion(
    {
      params: {
        path: {
          deploymentId: deploymentId ?? 0,
          workbookId: workbookId ?? 0,
          versionNumber: versionNumber ?? 1,
        },
      },
    },
    { enabled: ok, retry: false },
  );
  if (!ok) return <ErrorState title="Not found" message="This address does not name a dashboard version." />;
  if (read.isError) return <ErrorState title="This version could not be opened" error={read.error} />;
  if (!read.data) return <LoadingState label="Loading the version…" />;
  const version = read.data;
  return (
    <DashboardView
      className="tsr-page"
      dashboard={version}
      client={client}
      deploymentId={deploymentId}
      syncUrl={false}
      header={
        <header className="tsr-page-head">
          <h1 className="tsr-page-title">
            {version.title || 'Untitled dashboard'}: version {version.versionNumber}
          </h1>
          <p className="tsr-page-description">
            {version.status === 'published'
              ? 'The published version. '
              : 'An earlier version, no longer published. '}
            <Link to={`/workspace/${deploymentId}/workbooks/${workbookId}/edit`}>Back to the editor</Link>
          </p>
        </header>
      }
    />
  );
}
