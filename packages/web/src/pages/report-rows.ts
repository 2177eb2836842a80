import { keepPreviousData, type QueryClient, useQuery, useQueryClient } from '@tanstack/react-query';
import { type Client, type CubeQuery, createDataApi, type DataApi, unwrap } from '@tessera/client';
import { useClient } from '@tessera/client/react';
import { type Table, toTable } from '../dashboard/rows.ts';
import { useSignedInUser } from '../session/session.tsx';

/** What the report page needs of a report to ask for its rows. */
export interface ReportQuery {
  id: number;
  jsonQuery: string | null;
  sqlQuery: string | null;
}

/** A data-API token lives an hour; the page asks for a new one well before it ends. */
const tokenLifetime = 3600;
const tokenStaleAfter = 30 * 60_000;

/**
 * The report's rows from the data API (DESIGN.md "Addresses"), as the analyst's own session may
 * read them: a data-API token from `POST /api/v1/deployments/{id}/token` (kept for half an hour),
 * then `/v1/load` for a semantic query or `/v1/cubesql` for a SQL one. The previous rows stay
 * while new ones load (`isPlaceholderData`, or `isFetching` on a refresh), so the page can dim them.
 */
export function useReportRows(deploymentId: number, report: ReportQuery) {
  const client = useClient();
  const queryClient = useQueryClient();
  const viewer = useSignedInUser().role === 'viewer';
  return useQuery<Table, Error>({
    queryKey: ['report-rows', deploymentId, report.id, report.jsonQuery, report.sqlQuery, viewer],
    enabled: report.jsonQuery !== null || report.sqlQuery !== null,
    placeholderData: keepPreviousData,
    refetchOnWindowFocus: false,
    // A 4xx (a bad member, no access) is the query's own problem: asking again will not help.
    retry: (count, error) => count < 2 && !isFinal(error),
    queryFn: async ({ signal }) => {
      // A viewer gets no data-API token (it is a developer's): the management API runs the
      // report's query for anyone with view access to it, under their own security context.
      if (viewer) return reportData(client, deploymentId, report.id, signal);
      const { api } = await dataApiFor(queryClient, client, deploymentId);
      return report.jsonQuery !== null
        ? loadRows(api, parseQuery(report.jsonQuery), signal)
        : sqlRows(api, report.sqlQuery ?? '', signal);
    },
  });
}

/**
 * The data API of a deployment as the signed-in user may call it: a data-API token (one per
 * deployment in the query cache, renewed after half an hour) and the client's helpers with it.
 */
export async function dataApiFor(
  queryClient: QueryClient,
  client: Client,
  deploymentId: number,
): Promise<{ api: DataApi; token: string }> {
  const token = await queryClient.fetchQuery({
    queryKey: ['data-api-token', deploymentId],
    queryFn: () => issueToken(client, deploymentId),
    staleTime: tokenStaleAfter,
  });
  return {
    api: createDataApi({ baseUrl: window.location.origin, deploymentId, token, retry: false }),
    token,
  };
}

/** `POST .../reports/{id}/data`: the report's rows as its viewer may read them. */
async function reportData(
  client: Client,
  deploymentId: number,
  reportId: number,
  signal: AbortSignal,
): Promise<Table> {
  const answer = unwrap(
    await client.POST('/api/v1/deployments/{deploymentId}/reports/{reportId}/data', {
      params: { path: { deploymentId, reportId } },
      body: {},
      signal,
    }),
  );
  return toTable({
    kind: answer.kind,
    annotation: answer.annotation,
    columns: answer.columns,
    data: answer.data,
    totalRows: answer.totalRows,
  });
}

async function issueToken(client: Client, deploymentId: number): Promise<string> {
  const answer = unwrap(
    await client.POST('/api/v1/deployments/{deploymentId}/token', {
      params: { path: { deploymentId } },
      body: { expiresIn: tokenLifetime },
    }),
  );
  return answer.serviceApiToken;
}

function parseQuery(text: string): CubeQuery {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('The report\u2019s query is not valid JSON.');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new Error('The report\u2019s query is not a JSON object.');
  return value as CubeQuery;
}

async function loadRows(api: DataApi, query: CubeQuery, signal: AbortSignal): Promise<Table> {
  const answer = await api.load(query, { signal });
  return toTable({
    kind: 'semantic',
    annotation: answer.annotation,
    data: answer.data as Record<string, unknown>[],
    totalRows: null,
  });
}

async function sqlRows(api: DataApi, sql: string, signal: AbortSignal): Promise<Table> {
  let columns: { name: string; column_type: string }[] = [];
  const data: Record<string, unknown>[] = [];
  for await (const event of api.cubesql(sql, { signal })) {
    if (event.type === 'schema')
      columns = event.schema.map((c) => ({ name: c.name, column_type: c.column_type }));
    else data.push(rowObject(event.row as unknown, columns));
  }
  return toTable({ kind: 'sql', columns, data, totalRows: null });
}

/** A SQL-API row comes as an array of values in the schema's order. */
function rowObject(row: unknown, columns: readonly { name: string }[]): Record<string, unknown> {
  if (!Array.isArray(row)) return (row ?? {}) as Record<string, unknown>;
  return Object.fromEntries(columns.map((c, i) => [c.name, row[i]]));
}

export function isFinal(error: unknown): boolean {
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 429;
}
