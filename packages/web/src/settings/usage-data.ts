import { useQuery } from '@tanstack/react-query';
import { type Client, createDataApi, type DataApi, unwrap } from '@tessera/client';
import { useClient } from '@tessera/client/react';
import { useMemo } from 'react';
import { type Table, tableFromLoad } from '../results/index.ts';

/** The reference's usage token lives an hour: ask again well before it ends. */
const tokenStaleMs = 30 * 60_000;

async function issueUsageToken(client: Client) {
  return unwrap(await client.POST('/api/v1/usage-analytics/token'));
}

/**
 * The data API of this account's Usage Analytics (issue 25 item 5): a token from
 * `POST /api/v1/usage-analytics/token` (admins only), kept in the query cache, and the client's
 * data-API helpers pointed at the deployment it names.
 */
export function useUsageApi() {
  const client = useClient();
  const token = useQuery({
    queryKey: ['usage-analytics-token'],
    queryFn: () => issueUsageToken(client),
    staleTime: tokenStaleMs,
    retry: false,
  });
  const api = useMemo<DataApi | undefined>(
    () =>
      token.data
        ? createDataApi({
            baseUrl: window.location.origin,
            deploymentId: token.data.deploymentId,
            token: token.data.token,
            retry: false,
          })
        : undefined,
    [token.data],
  );
  return { api, token };
}

/** One usage query, answered as a table with the app's column titles and kinds. */
export function useUsageTable(api: DataApi | undefined, name: string, query: Record<string, unknown>) {
  return useQuery<Table>({
    queryKey: ['usage-analytics', name, query],
    // Days and times in the viewer's own time zone, as the date ranges above are.
    queryFn: async () => tableFromLoad(await api!.load({ timezone: viewerTimeZone(), ...query })),
    enabled: api !== undefined,
    retry: false,
  });
}

/** `YYYY-MM-DD` of the local day `days` before today: date ranges of the last 30 days, today included. */
export function dayBefore(days: number, now = new Date()): string {
  const d = new Date(now.getFullYear(), now.getMonth(), now.getDate() - days);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

function viewerTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}
