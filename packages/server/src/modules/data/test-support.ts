import { PassThrough } from 'node:stream';
import cube from '@cubejs-client/core';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { TestServer } from '../../../test/harness.ts';
import { bearer, startTestServer } from '../../../test/harness.ts';
import { sampleDatabaseFile } from '../../datasources/registry.ts';
import { ensureSampleDatabase } from '../../datasources/sample/generate.ts';

/** Shared by the data-API tests: a listening server, tokens from the management API, a client. */
export async function listen(server: TestServer): Promise<string> {
  const address = await server.app.listen({ host: '127.0.0.1', port: 0 });
  return address;
}

export async function tokenFor(
  server: TestServer,
  deploymentId: number,
  body: Record<string, unknown> = {},
): Promise<string> {
  const res = await server.app.inject({
    method: 'POST',
    url: `/api/v1/deployments/${deploymentId}/token`,
    headers: bearer(server.adminKey),
    payload: body,
  });
  if (res.statusCode !== 200) throw new Error(`token: ${res.statusCode} ${res.body}`);
  return res.json().serviceApiToken;
}

/**
 * Gives `deploymentId` the demo deployment's model files (on their branch), plus `extra` files,
 * so that a deployment on another engine answers the same queries as the demo's DuckDB one.
 */
export async function copyDemoModel(
  server: TestServer,
  deploymentId: number,
  extra: Array<{ path: string; content: string }> = [],
): Promise<void> {
  const files = await server.store.db
    .selectFrom('model_files')
    .select(['path', 'content', 'branch'])
    .where('deployment_id', '=', server.demoDeploymentId)
    .execute();
  const branch = files[0]!.branch;
  await server.store.db
    .insertInto('model_files')
    .values([
      ...files.map((f) => ({ ...f, deployment_id: deploymentId })),
      ...extra.map((f) => ({ ...f, branch, deployment_id: deploymentId })),
    ])
    .execute();
}

export function client(baseUrl: string, deploymentId: number, token: string) {
  return cube(token, { apiUrl: `${baseUrl}/data/${deploymentId}/cubejs-api/v1` });
}

/** Numbers as strings differ in float digits between engines (numeric vs double); round them. */
export function normalizeNumbers(rows: Record<string, unknown>[]) {
  return rows.map((r) =>
    Object.fromEntries(
      Object.entries(r).map(([k, v]) => [
        k,
        typeof v === 'string' && /^-?\d+(\.\d+)?(e-?\d+)?$/.test(v)
          ? String(Number(Number(v).toFixed(6)))
          : v,
      ]),
    ),
  );
}

/** The raw `/v1/load` body behind a ResultSet, through its public `serialize()`. */
export function rawResponse(rs: { serialize(): { loadResponse: unknown } }) {
  return rs.serialize().loadResponse as {
    queryType: string;
    results: (Record<string, unknown> & { lastRefreshTime: string; dbType: string })[];
  };
}

/**
 * The sample database's tables (generated at `scale` when missing) copied into a protocol server's
 * DuckDB, schema `main`: the warehouse a protocol test's deployment reads, with the demo's rows.
 */
export async function copySampleTables(
  server: TestServer,
  duck: DuckDBConnection,
  scale: number,
): Promise<void> {
  const file = sampleDatabaseFile(server.config.dataDir);
  await ensureSampleDatabase(file, scale);
  await duck.run(`ATTACH '${file}' AS sample (READ_ONLY)`);
  const tables = await duck.runAndReadAll(
    "SELECT table_name FROM information_schema.tables WHERE table_catalog = 'sample' AND table_type = 'BASE TABLE'",
  );
  for (const [table] of tables.getRows() as string[][])
    await duck.run(`CREATE TABLE main."${table}" AS SELECT * FROM sample.main."${table}"`);
  await duck.run('DETACH sample');
}

type InjectedResponse = Awaited<ReturnType<TestServer['app']['inject']>>;

/**
 * A listening test server for a warehouse file that keeps its log lines and the body of every
 * admin call and data-API answer, so that the file can check that no secret appears in any.
 */
export interface RecordingServer {
  server: TestServer;
  baseUrl: string;
  call(method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown): Promise<InjectedResponse>;
  /** POST /v1/load over HTTP; aborting `signal` closes the connection before the answer. */
  load(
    deploymentId: number,
    token: string,
    query: unknown,
    signal?: AbortSignal,
  ): Promise<{ status: number; text: string }>;
}

export async function startRecordingServer(kept: {
  log: string[];
  bodies: string[];
}): Promise<RecordingServer> {
  const logStream = new PassThrough();
  logStream.on('data', (line: Buffer) => kept.log.push(line.toString('utf8')));
  const server = await startTestServer({}, undefined, logStream);
  const baseUrl = await listen(server);
  return {
    server,
    baseUrl,
    async call(method, url, payload) {
      const res = await server.app.inject({
        method,
        url,
        headers: bearer(server.adminKey),
        ...(payload ? { payload } : {}),
      });
      kept.bodies.push(res.body);
      return res;
    },
    async load(deploymentId, token, query, signal) {
      const res = await fetch(`${baseUrl}/data/${deploymentId}/cubejs-api/v1/load`, {
        method: 'POST',
        headers: { authorization: token, 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
        signal,
      });
      const text = await res.text();
      kept.bodies.push(text);
      return { status: res.status, text };
    },
  };
}

/**
 * A cube over the sample's orders with a daily rollup, as the YAML of one list item under
 * `cubes:`: the files that build a pre-aggregation on a warehouse kind through its protocol server.
 */
export const rolledCube = `  - name: rolled
    sql_table: orders
    measures:
      - name: count
        type: count
      - name: amount
        type: sum
        sql: amount
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: status
        sql: status
        type: string
      - name: created_at
        sql: created_at
        type: time
    pre_aggregations:
      - name: daily
        measures: [count, amount]
        dimensions: [status]
        time_dimension: created_at
        granularity: day
`;
