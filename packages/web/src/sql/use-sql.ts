import { type QueryClient, useQuery, useQueryClient } from '@tanstack/react-query';
import { type DataApi, DataApiError } from '@tessera/client';
import { useClient, useRecordQuery } from '@tessera/client/react';
import { useCallback, useEffect, useRef, useState } from 'react';
import { dataApiFor } from '../api/data-api.ts';
import type { Table } from '../dashboard/rows.ts';
import { type Catalogue, catalogueOf } from './catalogue.ts';
import { type SqlColumn, sqlResultTable } from './result-table.ts';

/** The most rows the page keeps of one answer: beyond it, the query is told to add a LIMIT. */
export const maxRows = 50_000;

const catalogueKey = (deploymentId: number) => ['sql-catalogue', deploymentId];
const catalogueStaleAfter = 5 * 60_000;

/** The model as the signed-in user's data-API token sees it (`GET /v1/meta`), for completion and titles. */
export function useCatalogue(deploymentId: number) {
  const client = useClient();
  const queryClient = useQueryClient();
  return useQuery<Catalogue, Error>({
    queryKey: catalogueKey(deploymentId),
    queryFn: async ({ signal }) => {
      const { api } = await dataApiFor(queryClient, client, deploymentId);
      return catalogueOf(await api.meta({ signal }));
    },
    staleTime: catalogueStaleAfter,
    retry: false,
  });
}

/**
 * The same catalogue for a page that only describes SQL results (the report page), from the
 * cache when the editor read it; null when the model cannot be read (the SQL names stand then).
 */
export function fetchCatalogue(queryClient: QueryClient, api: DataApi, deploymentId: number) {
  return queryClient
    .fetchQuery({
      queryKey: catalogueKey(deploymentId),
      queryFn: async () => catalogueOf(await api.meta()),
      staleTime: catalogueStaleAfter,
    })
    .catch(() => null);
}

export interface SqlResult {
  sql: string;
  columns: SqlColumn[];
  table: Table;
  durationMs: number;
  /** More rows were answered than `maxRows`: only the first are kept. */
  truncated: boolean;
}

export interface SqlRun {
  /** The last answer, kept on the page while the next query runs and when it fails. */
  result: SqlResult | null;
  running: boolean;
  /** Why the last run failed (the data API's own words), or null. */
  error: { sql: string; message: string; cause: unknown } | null;
  run: (sql: string) => void;
  cancel: () => void;
}

/**
 * Runs SQL-API text (`POST /v1/cubesql`) with the user's data-API token, reading its NDJSON as
 * it arrives, and records each run in the user's query history (its text, rows and time, or its
 * error). A run started while another runs cancels the earlier one.
 */
export function useSqlRun(deploymentId: number, catalogue: Catalogue | null): SqlRun {
  const client = useClient();
  const queryClient = useQueryClient();
  const record = useRecordQuery();
  const [result, setResult] = useState<SqlResult | null>(null);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<SqlRun['error']>(null);
  const current = useRef<AbortController | null>(null);
  const catalogueRef = useRef(catalogue);
  catalogueRef.current = catalogue;
  const recordRun = record.mutate;

  useEffect(() => () => current.current?.abort(), []);

  const run = useCallback(
    (sql: string) => {
      const text = sql.trim();
      if (text === '') return;
      current.current?.abort();
      const controller = new AbortController();
      current.current = controller;
      setRunning(true);
      setError(null);
      const started = performance.now();
      const remember = (body: { rowCount?: number; durationMs?: number; error?: string }) =>
        recordRun(
          { params: { path: { deploymentId } }, body: { sql: text.slice(0, 100_000), ...body } },
          { onError: () => undefined },
        );
      (async () => {
        const { api } = await dataApiFor(queryClient, client, deploymentId);
        let columns: SqlColumn[] = [];
        const rows: unknown[][] = [];
        let truncated = false;
        for await (const event of api.cubesql(text, { signal: controller.signal })) {
          if (event.type === 'schema')
            columns = event.schema.map((c) => ({ name: c.name, column_type: c.column_type }));
          else if (rows.length < maxRows) rows.push(event.row as unknown[]);
          else {
            truncated = true;
            controller.abort();
            break;
          }
        }
        const durationMs = Math.round(performance.now() - started);
        const table = sqlResultTable(columns, rows, text, catalogueRef.current);
        return { sql: text, columns, table, durationMs, truncated };
      })().then(
        (answer) => {
          if (current.current !== controller) return;
          setResult(answer);
          setRunning(false);
          remember({ rowCount: answer.table.rows.length, durationMs: answer.durationMs });
        },
        (cause: unknown) => {
          if (current.current !== controller) return;
          setRunning(false);
          if (controller.signal.aborted) return;
          const message = runErrorText(cause);
          setError({ sql: text, message, cause });
          remember({ error: message.slice(0, 10_000) });
        },
      );
    },
    [client, queryClient, deploymentId, recordRun],
  );

  const cancel = useCallback(() => {
    current.current?.abort();
    current.current = null;
    setRunning(false);
  }, []);

  return { result, running, error, run, cancel };
}

/** The data API's words for a refused query; the management API's for a refused token. */
export function runErrorText(error: unknown): string {
  if (error instanceof DataApiError) return error.message;
  const status = (error as { status?: unknown }).status;
  if (status === 403)
    return 'Running SQL needs the developer role, to get a data-API token for this deployment.';
  if (error instanceof TypeError) return 'The server could not be reached. Check your connection.';
  return error instanceof Error ? error.message : 'The query failed.';
}
