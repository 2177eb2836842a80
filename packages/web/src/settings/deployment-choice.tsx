import { useGetDeployments } from '@tessera/client/react';
import { type ReactNode, useId } from 'react';
import { useSearchParams } from 'react-router';
import { rememberDeployment, rememberedDeployment } from '../layout/deployment.ts';
import { ErrorState, LoadingState } from '../layout/states.tsx';

/**
 * The deployment a per-deployment Settings page shows (chat agents, env variables): the one in the
 * address (`?deployment=`, to link to), else the one last chosen on this browser, else the first.
 * Renders the choice (its label unlike the top bar's picker), and hands the chosen id to `children`.
 */
export function DeploymentChoice({
  label,
  children,
}: {
  /** The select's label, distinct from the top bar's `Deployment`, e.g. `Agents of`. */
  label: string;
  children: (deploymentId: number) => ReactNode;
}) {
  const deployments = useGetDeployments({ params: { query: { first: 1000 } } });
  const [search, setSearch] = useSearchParams();
  const selectId = useId();
  if (!deployments.data) {
    if (deployments.isError)
      return <ErrorState error={deployments.error} onRetry={() => deployments.refetch()} />;
    return <LoadingState label="Loading deployments…" />;
  }
  const items = deployments.data.items;
  const wanted = Number(search.get('deployment')) || rememberedDeployment();
  const chosen = items.find((d) => d.id === wanted) ?? items[0];
  if (!chosen) return <p className="muted">There is no deployment yet.</p>;
  return (
    <>
      <div className="field settings-picker">
        <label htmlFor={selectId}>{label}</label>
        <select
          id={selectId}
          value={chosen.id}
          onChange={(e) => {
            rememberDeployment(Number(e.target.value));
            setSearch({ deployment: e.target.value }, { replace: true });
          }}
        >
          {items.map((d) => (
            <option key={d.id} value={d.id}>
              {d.name}
            </option>
          ))}
        </select>
      </div>
      {children(chosen.id)}
    </>
  );
}
