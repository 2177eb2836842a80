import type { TestServer } from '../../../../test/harness.ts';
import { normalizeRow } from './cases.ts';

export interface NdjsonAnswer {
  status: number;
  schema: { name: string; column_type: string }[];
  rows: unknown[][];
  error: string | null;
  lines: Record<string, unknown>[];
}

/** POSTs SQL to `/v1/cubesql` and reads the NDJSON answer (or the JSON error). */
export async function cubesql(
  server: TestServer,
  deploymentId: number,
  token: string,
  sql: string,
  headers: Record<string, string> = {},
): Promise<NdjsonAnswer> {
  const res = await server.app.inject({
    method: 'POST',
    url: `/data/${deploymentId}/cubejs-api/v1/cubesql`,
    headers: { authorization: token, ...headers },
    payload: { query: sql },
  });
  if (res.statusCode !== 200) {
    return { status: res.statusCode, schema: [], rows: [], error: res.json().error, lines: [] };
  }
  const lines = res.body
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const rows = lines.flatMap((l) => (l.data as unknown[][] | undefined) ?? []);
  const error = (lines.find((l) => l.error)?.error as string | undefined) ?? null;
  return { status: res.statusCode, schema: lines[0].schema as NdjsonAnswer['schema'], rows, error, lines };
}

export const normalized = (rows: unknown[][]) => rows.map(normalizeRow);

export function values(rows: Record<string, unknown>[]): unknown[][] {
  return rows.map((r) => Object.values(r));
}
