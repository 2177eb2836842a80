import { useGetDeployments } from '@tessera/client/react';
import { Navigate } from 'react-router';
import type { Section } from '../layout/app-shell.tsx';
import { rememberedDeployment } from '../layout/deployment.ts';
import { PageHeader } from '../layout/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../layout/states.tsx';

/**
 * `/`, `/workspace`, `/dashboards` and `/chat`: opens the section on the deployment chosen last on this
 * browser when the caller still reaches it, else on the first one the API lists.
 */
export function ChooseDeployment({ section }: { section: Section }) {
  const deployments = useGetDeployments({ params: { query: { first: 1000 } } });
  if (deployments.isPending) return <LoadingState label="Loading deployments…" />;
  if (deployments.isError) {
    return (
      <ErrorState
        title="The deployments could not be loaded"
        error={deployments.error}
        onRetry={() => void deployments.refetch()}
      />
    );
  }
  const items = deployments.data.items;
  const remembered = rememberedDeployment();
  const chosen = items.find((d) => d.id === remembered) ?? items[0];
  if (chosen) return <Navigate to={`/${section}/${chosen.id}`} replace />;
  return (
    <>
      <PageHeader title="Welcome to Tessera" />
      <EmptyState title="No deployments yet">
        A deployment connects Tessera to your data. Create one with the <a href="/api/docs">management API</a>
        , or ask an administrator to give you access to one.
      </EmptyState>
    </>
  );
}
