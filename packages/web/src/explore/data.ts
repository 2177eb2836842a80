import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { type CubeQuery, DataApiError, type MetaResult } from '@tessera/client';
import { useClient } from '@tessera/client/react';
import { dataApiFor, isFinal } from '../reports/report-rows.ts';
import { type Table, tableFromLoad } from '../results/table.ts';
import { type ExploreModel, modelOf } from './model.ts';

const retry = (count: number, error: unknown) => count < 2 && !isFinal(error);

/** The cubes and views this user's data-API token may see, as Explore's tree reads them. */
export function useExploreModel(deploymentId: number) {
  const client = useClient();
  const queryClient = useQueryClient();
  return useQuery<ExploreModel, Error>({
    queryKey: ['explore-meta', deploymentId],
    retry,
    staleTime: 5 * 60_000,
    queryFn: async ({ signal }) => {
      const { api } = await dataApiFor(queryClient, client, deploymentId);
      return modelOf((await api.meta({ signal })) as MetaResult);
    },
  });
}

/**
 * A query's rows from `/v1/load`. The previous rows stay (`isPlaceholderData`) while the next
 * query runs, so the page can dim them rather than blank them.
 */
export function useExploreRows(deploymentId: number, query: Record<string, unknown> | null) {
  const client = useClient();
  const queryClient = useQueryClient();
  const key = query ? JSON.stringify(query) : null;
  return useQuery<Table, Error>({
    queryKey: ['explore-rows', deploymentId, key],
    enabled: key !== null,
    placeholderData: keepPreviousData,
    retry,
    staleTime: 60_000,
    queryFn: async ({ signal }) => {
      const { api } = await dataApiFor(queryClient, client, deploymentId);
      return tableFromLoad(await api.load(query as CubeQuery, { signal }));
    },
  });
}

/** The SQL a query compiles to (`/v1/sql`): its text and parameters. */
export interface CompiledSql {
  sql: string;
  params: unknown[];
}

export function useExploreSql(deploymentId: number, query: Record<string, unknown> | null, enabled: boolean) {
  const client = useClient();
  const queryClient = useQueryClient();
  const key = query ? JSON.stringify(query) : null;
  return useQuery<CompiledSql, Error>({
    queryKey: ['explore-sql', deploymentId, key],
    enabled: enabled && key !== null,
    placeholderData: keepPreviousData,
    retry,
    queryFn: async ({ signal }) => {
      const { token } = await dataApiFor(queryClient, client, deploymentId);
      const response = await fetch(`/data/${deploymentId}/cubejs-api/v1/sql`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: token },
        body: JSON.stringify({ query }),
        signal,
      });
      const body = (await response.json().catch(() => ({ error: response.statusText }))) as {
        error?: unknown;
        sql?: { sql?: [string, unknown[]] };
      };
      if (!response.ok || typeof body.error === 'string') throw new DataApiError(response.status, body);
      const [sql, params] = body.sql?.sql ?? ['', []];
      return { sql, params };
    },
  });
}

/** How many of a dimension's values a filter offers; more can still be typed. */
const suggestedValues = 200;

/**
 * A string dimension's values, in order, for a filter's suggestions: asked of `/v1/load` with the
 * viewer's own token, so the list holds only what their security context lets them see.
 */
export function useDimensionValues(deploymentId: number, member: string | null) {
  const client = useClient();
  const queryClient = useQueryClient();
  return useQuery<string[], Error>({
    queryKey: ['explore-values', deploymentId, member],
    enabled: member !== null,
    retry,
    staleTime: 5 * 60_000,
    queryFn: async ({ signal }) => {
      const name = member as string;
      const { api } = await dataApiFor(queryClient, client, deploymentId);
      const answer = await api.load(
        { dimensions: [name], order: [[name, 'asc']], limit: suggestedValues } as CubeQuery,
        { signal },
      );
      const rows = Array.isArray(answer.data) ? (answer.data as Record<string, unknown>[]) : [];
      return rows
        .map((row) => row[name])
        .filter((v) => v !== null && v !== undefined)
        .map(String);
    },
  });
}
