import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bearer, type TestServer } from '../../../test/harness.ts';
import { DuckDbDriver } from '../../datasources/duckdb-driver.ts';

/** Shared by the alert tests: HTTP calls, and a deployment whose data the test rewrites. */

export function alertsApi(server: TestServer, deploymentId: number) {
  const base = `/api/v1/deployments/${deploymentId}/alerts`;
  const call = async (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    p: string,
    payload?: unknown,
    key = server.adminKey,
  ) => {
    const res = await server.app.inject({
      method,
      url: `${base}${p}`,
      headers: bearer(key),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: res.statusCode, body: res.body ? res.json() : undefined };
  };
  const ok = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', p: string, payload?: unknown) => {
    const res = await call(method, p, payload);
    if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  return {
    call,
    ok,
    create: (body: Record<string, unknown>) => ok('POST', '', body),
    check: (id: number) => ok('POST', `/${id}/check`),
    checks: (id: number) => ok('GET', `/${id}/checks?first=100`),
  };
}

/** The model of the metrics table: a sum by day and region, each region's rows for its users only. */
const metricsModel = `cubes:
  - name: metrics
    sql_table: metrics
    measures:
      - name: total
        type: sum
        sql: amount
    dimensions:
      - name: region
        sql: region
        type: string
      - name: day
        sql: day
        type: time
    access_policy:
      - group: "*"
        conditions:
          - if: "{ !userAttributes.region }"
      - group: "*"
        conditions:
          - if: "{ userAttributes.region }"
        row_level:
          filters:
            - member: region
              operator: equals
              values: ["{ userAttributes.region }"]
`;

export type MetricRow = [day: string, region: string, amount: number];

/**
 * A DuckDB deployment whose `metrics` table is a view over a CSV file in the data directory: the
 * test rewrites the file (`write`) and the next query reads the new rows, as a warehouse being
 * loaded would change under an alert.
 */
export async function metricsDeployment(server: TestServer) {
  const dir = path.join(server.config.dataDir, 'warehouses');
  mkdirSync(dir, { recursive: true });
  const csv = path.join(dir, 'metrics.csv');
  const write = (rows: MetricRow[]) =>
    writeFileSync(csv, `day,region,amount\n${rows.map((r) => r.join(',')).join('\n')}\n`);
  write([]);
  const duck = await DuckDbDriver.open(path.join(dir, 'metrics.duckdb'));
  await duck.query(
    `CREATE VIEW metrics AS SELECT * FROM read_csv('${csv.replaceAll("'", "''")}', header = true,
      columns = {'day': 'DATE', 'region': 'VARCHAR', 'amount': 'DOUBLE'})`,
    [],
  );
  await duck.close();
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/deployments',
    headers: bearer(server.adminKey),
    payload: { name: 'metrics', dataSource: { type: 'duckdb', path: 'warehouses/metrics.duckdb' } },
  });
  if (res.statusCode !== 200) throw new Error(`deployment: ${res.statusCode} ${res.body}`);
  const deploymentId = res.json().id as number;
  await server.store.db
    .insertInto('model_files')
    .values({ deployment_id: deploymentId, path: 'model/metrics.yml', content: metricsModel, branch: 'main' })
    .execute();
  return { deploymentId, write };
}
