import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { type Client, type CubeQuery, type DataApi, unwrap } from '@tessera/client';
import { useClient } from '@tessera/client/react';
import { dataApiFor } from '../api/data-api.ts';
import { type Table, toTable } from '../dashboard/rows.ts';
import { useSignedInUser } from '../session/session.tsx';
import type { Catalogue } from '../sql/catalogue.ts';
import { sqlResultTable } from '../sql/result-table.ts';
import { fetchCatalogue } from '../sql/use-sql.ts';

/** What the report page needs of a report to ask for its rows. */
export interface ReportQuery {
  id: number;
  jsonQuery: string | null;
  sqlQuery: string | null;
}

/**
 * The report's rows from the data API (DESIGN.md "Addresses"), as the analyst's own session may
 * read them (api/data-api.ts): `/v1/load` for a semantic query, `/v1/cubesql` for a SQL one,
 * whose columns are described by the model as the SQL editor describes them (`/v1/meta`: a
 * column that is a member gets its title and format). The previous rows stay
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
        : sqlRows(api, report.sqlQuery ?? '', signal, await fetchCatalogue(queryClient, api, deploymentId));
    },
  });
}

/** Explore reads the data API as the report page does (api/data-api.ts). */
export { dataApiFor };

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

async function sqlRows(
  api: DataApi,
  sql: string,
  signal: AbortSignal,
  catalogue: Catalogue | null,
): Promise<Table> {
  let columns: { name: string; column_type: string }[] = [];
  const rows: unknown[][] = [];
  for await (const event of api.cubesql(sql, { signal })) {
    if (event.type === 'schema')
      columns = event.schema.map((c) => ({ name: c.name, column_type: c.column_type }));
    else rows.push(rowArray(event.row as unknown, columns));
  }
  return sqlResultTable(columns, rows, sql, catalogue);
}

/** A SQL-API row comes as an array of values in the schema's order (an object, by name, is read so). */
function rowArray(row: unknown, columns: readonly { name: string }[]): unknown[] {
  if (Array.isArray(row)) return row;
  const byName = (row ?? {}) as Record<string, unknown>;
  return columns.map((c) => byName[c.name]);
}

export function isFinal(error: unknown): boolean {
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 429;
}
