import { useGetDeployments } from '@tessera/client/react';
import { Link } from 'react-router';
import { Card, PageHeader } from '../layout/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../layout/states.tsx';
import { useSignedInUser } from '../session/session.tsx';
import { kindOf, sourceSummary } from './kinds.ts';
import './data.css';

/** Whether a deployment's data source answered its last test (`creationStep`). */
export function SourceStatus({ step }: { step: string }) {
  const connected = step !== 'databases';
  return (
    <span className={connected ? 'badge badge-ok' : 'badge badge-warn'}>
      {connected ? 'Connected' : 'Not connected'}
    </span>
  );
}

/** `/data-sources`: every data source the user reaches (one per deployment), and a way to add one. */
export function DataSourcesPage() {
  const user = useSignedInUser();
  const deployments = useGetDeployments({ params: { query: { first: 1000 } } });
  const add =
    user.role === 'admin' ? (
      <Link to="/data-sources/new" className="button button-primary">
        Add data source
      </Link>
    ) : null;
  return (
    <div className="data-page">
      <PageHeader
        title="Data"
        subtitle="Data sources, their tables and the data models built on them."
        actions={add}
      />
      {deployments.isPending ? (
        <LoadingState label="Loading data sources…" />
      ) : deployments.isError ? (
        <ErrorState
          title="The data sources could not be loaded"
          error={deployments.error}
          onRetry={() => void deployments.refetch()}
        />
      ) : deployments.data.items.length === 0 ? (
        <EmptyState title="No data sources yet">Add one to connect Tessera to a warehouse.</EmptyState>
      ) : (
        <Card title="Data sources">
          <ul className="source-list">
            {deployments.data.items.map((d) => (
              <li key={d.id}>
                <Link to={`/data-sources/${d.id}`} className="source-name">
                  {d.name}
                </Link>
                <span className="muted">
                  {kindOf(d.dataSource.type).label}
                  {sourceSummary(d.dataSource, false)}
                </span>
                <SourceStatus step={d.creationStep} />
                <Link
                  to={`/data-sources/${d.id}/model`}
                  className="source-model-link"
                  aria-label={`Model of ${d.name}`}
                >
                  Model
                </Link>
              </li>
            ))}
          </ul>
        </Card>
      )}
    </div>
  );
}
