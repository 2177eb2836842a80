import { useIsFetching, useQueries } from '@tanstack/react-query';
import { unwrap } from '@tessera/client';
import { apiQueryKey, useClient, useGetWorkbooks } from '@tessera/client/react';
import { useId } from 'react';

const workbookPath = '/api/v1/deployments/{deploymentId}/workbooks/{workbookId}';
const grantsPath = '/api/v1/deployments/{deploymentId}/permissions';

interface Entry {
  workbookId: number;
  name: string;
  publicId: string;
}

/**
 * The dashboards a creator-mode user can open in this page (issue 12), in two lists that a user can
 * tell apart (spec 4.3 rule 2; the reference keeps the caller's workspace and the shared workspace,
 * `GET .../shared-workspace`, apart):
 * - "Your team's dashboards": its embed tenant's space, what the tenant's users created (its own
 *   and those shared with its tenant groups);
 * - "Shared with your team": what the host's account shared with the tenant (Dashboard Embed
 *   Access), which the user may open and copy but never change.
 * `GET .../workbooks` answers both for a creator token and does not say which is which; the grants
 * of a workbook do: content of a tenant's space always holds a grant to an embed user (its owner's
 * manage grant, modules/workbooks/service.ts `insertOwned`) or to a tenant group, and the host's
 * never does (modules/permissions/service.ts refuses tenant groups outside a tenant's space).
 */
export function TeamDashboards(props: {
  deploymentId: number;
  currentPublicId: string;
  onOpen: (publicId: string) => void;
}) {
  const teamHeading = useId();
  const hostHeading = useId();
  const { deploymentId } = props;
  const client = useClient();
  const workbooks = useGetWorkbooks({ params: { path: { deploymentId }, query: { first: 100 } } });
  const ids = (workbooks.data?.items ?? []).map((w) => w.id);
  // One single read per workbook (the list omits its published dashboard) and its grants, under the
  // hooks' own query keys, so that a rename, delete or share made on this page refreshes them.
  const reads = useQueries({
    queries: ids.map((workbookId) => {
      const init = { params: { path: { deploymentId, workbookId } } };
      return {
        queryKey: apiQueryKey(workbookPath, init),
        queryFn: async ({ signal }: { signal: AbortSignal }) =>
          unwrap(await client.GET(workbookPath, { ...init, signal })),
      };
    }),
  });
  const grants = useQueries({
    queries: ids.map((id) => {
      const init = { params: { path: { deploymentId }, query: { type: 'WORKBOOK' as const, id } } };
      return {
        queryKey: apiQueryKey(grantsPath, init),
        queryFn: async ({ signal }: { signal: AbortSignal }) =>
          unwrap(await client.GET(grantsPath, { ...init, signal })),
      };
    }),
  });
  const team: Entry[] = [];
  const host: Entry[] = [];
  ids.forEach((workbookId, i) => {
    const workbook = reads[i]?.data;
    const held = grants[i]?.data;
    const publicId = workbook?.publishedDashboard?.publicId;
    if (!workbook || !held || !publicId) return;
    const tenants = held.items.some((g) => g.embedUserId !== null || g.embedGroupId !== null);
    (tenants ? team : host).push({ workbookId, name: workbook.name, publicId });
  });
  // Busy while the list or any entry's reads are in flight, so that a screen reader, and a test,
  // can tell complete lists from ones still arriving.
  const fetching =
    useIsFetching({ queryKey: ['/api/v1/deployments/{deploymentId}/workbooks'] }) +
    useIsFetching({ queryKey: [workbookPath] }) +
    useIsFetching({ queryKey: [grantsPath] });
  const failed = workbooks.error || reads.some((r) => r.error) || grants.some((g) => g.error);

  return (
    <aside className="embed-team" aria-busy={fetching > 0}>
      <nav aria-labelledby={teamHeading} aria-busy={fetching > 0}>
        <h2 id={teamHeading}>Your team's dashboards</h2>
        {workbooks.isPending && <p className="embed-status-inline">Loading…</p>}
        {failed && <p className="embed-status-inline">The list could not be read in full.</p>}
        {fetching === 0 && workbooks.data && team.length === 0 && (
          <p className="embed-status-inline">Nothing yet. Save a copy of a dashboard to start.</p>
        )}
        <EntryList entries={team} {...props} />
      </nav>
      {host.length > 0 && (
        <nav aria-labelledby={hostHeading} aria-busy={fetching > 0}>
          <h2 id={hostHeading}>Shared with your team</h2>
          <p className="embed-team-note">From the application that embeds this page: open or copy.</p>
          <EntryList entries={host} {...props} />
        </nav>
      )}
    </aside>
  );
}

function EntryList(props: { entries: Entry[]; currentPublicId: string; onOpen: (publicId: string) => void }) {
  if (props.entries.length === 0) return null;
  return (
    <ul>
      {props.entries.map((entry) => (
        <li key={entry.workbookId}>
          <button
            type="button"
            className="embed-team-item"
            aria-current={entry.publicId === props.currentPublicId ? 'page' : undefined}
            onClick={() => props.onOpen(entry.publicId)}
          >
            {entry.name}
          </button>
        </li>
      ))}
    </ul>
  );
}
