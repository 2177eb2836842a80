import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../../test/harness.ts';
import type { Driver } from '../../../datasources/driver.ts';
import { DuckDbDriver } from '../../../datasources/duckdb-driver.ts';
import { PostgresDriver } from '../../../datasources/postgres-driver.ts';
import { sampleDatabaseFile } from '../../../datasources/registry.ts';
import { copySampleToPostgres } from '../../../datasources/sample/copy-to-postgres.ts';
import { copyDemoModel, tokenFor } from '../test-support.ts';
import { sqlApiCases } from './cases.ts';
import { cubesql, normalized, values } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';
const postgresUrl = inject('postgresUrl');

/** Each SQL-API query gives the rows of its direct SQL on the same engine: DuckDB, then PostgreSQL. */
describe('SQL API against direct SQL', () => {
  let server: TestServer;
  let token: string;
  const engines: { name: string; deploymentId: number; driver: Driver }[] = [];
  const database = `tessera_sqlapi_${process.pid}_${Date.now()}`;

  beforeAll(async () => {
    server = await startTestServer();
    token = await tokenFor(server, server.demoDeploymentId, {
      securityContext: { serviceCloud: { groups: ['admin'] } },
    });
    // the first query generates the sample database
    expect(
      (await cubesql(server, server.demoDeploymentId, token, 'SELECT MEASURE(count) FROM orders')).status,
    ).toBe(200);
    const file = sampleDatabaseFile(server.config.dataDir);
    engines.push({
      name: 'duckdb',
      deploymentId: server.demoDeploymentId,
      driver: await DuckDbDriver.open(file, true),
    });
    if (!postgresUrl) return;
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    const url = new URL(postgresUrl);
    url.pathname = `/${database}`;
    await copySampleToPostgres(file, { connectionString: url.toString() });
    const user = decodeURIComponent(url.username) || 'postgres';
    const password = url.password ? decodeURIComponent(url.password) : undefined;
    const created = await server.app.inject({
      method: 'POST',
      url: '/api/v1/deployments',
      headers: bearer(server.adminKey),
      payload: {
        name: 'warehouse',
        dataSource: {
          type: 'postgres',
          host: url.hostname,
          port: Number(url.port || 5432),
          database,
          user,
          ...(password ? { password } : {}),
        },
      },
    });
    const id = created.json().id as number;
    await copyDemoModel(server, id);
    const driver = new PostgresDriver({
      host: url.hostname,
      port: Number(url.port || 5432),
      database,
      user,
      password,
    });
    engines.push({ name: 'postgres', deploymentId: id, driver });
  });
  afterAll(async () => {
    for (const e of engines) await e.driver.close();
    await server?.close();
    if (!postgresUrl) return;
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  for (const [name, c] of Object.entries(sqlApiCases)) {
    it(name, async () => {
      for (const engine of engines) {
        const tokenFor =
          engine.deploymentId === server.demoDeploymentId ? token : await engineToken(engine.deploymentId);
        const answer = await cubesql(server, engine.deploymentId, tokenFor, c.api);
        expect(answer.status, `${engine.name}: ${answer.error}`).toBe(200);
        expect(answer.error).toBeNull();
        const direct = values(await engine.driver.query(c.direct, []));
        expect(direct.length, engine.name).toBeGreaterThan(0);
        expect(normalized(answer.rows), engine.name).toEqual(normalized(direct));
      }
    });
  }

  const tokens = new Map<number, string>();
  async function engineToken(id: number) {
    if (!tokens.has(id))
      tokens.set(
        id,
        await tokenFor(server, id, { securityContext: { serviceCloud: { groups: ['admin'] } } }),
      );
    return tokens.get(id)!;
  }

  it('answers NDJSON: a schema line with Cube column types, then data lines', async () => {
    const a = await cubesql(
      server,
      server.demoDeploymentId,
      token,
      "SELECT status, MEASURE(count), DATE_TRUNC('year', created_at) AS y, SUM(total_amount) FROM orders GROUP BY 1, 3",
    );
    expect(a.schema).toEqual([
      { name: 'status', column_type: 'Utf8' },
      { name: 'measure', column_type: 'Int64' },
      { name: 'y', column_type: 'Timestamp' },
      { name: 'sum', column_type: 'Float64' },
    ]);
    expect(a.lines[0].lastRefreshTime).toEqual(expect.any(String));
    expect(a.lines[1].data).toEqual(expect.any(Array));
    expect(typeof a.rows[0][1]).toBe('string');
  });

  it('accepts GET with ?query=', async () => {
    const res = await server.app.inject({
      url: `/data/${server.demoDeploymentId}/cubejs-api/v1/cubesql?query=${encodeURIComponent('SELECT MEASURE(count) FROM orders')}`,
      headers: { authorization: token },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/x-ndjson');
    expect(JSON.parse(res.body.split('\n')[1]).data).toEqual([['2000']]);
  });
});

if (!postgresUrl)
  describe.skip(`PostgreSQL unreachable: SQL API on PostgreSQL skipped (${path.basename(import.meta.filename)})`, () => {});
