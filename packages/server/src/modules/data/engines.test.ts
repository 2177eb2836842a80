import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { sampleDatabaseFile } from '../../datasources/registry.ts';
import { copySampleToPostgres } from '../../datasources/sample/copy-to-postgres.ts';
import { ensureSampleDatabase } from '../../datasources/sample/generate.ts';
import { engineQueries } from './engine-queries.ts';
import { client, copyDemoModel, listen, normalizeNumbers, rawResponse, tokenFor } from './test-support.ts';

const scale = 0.002;
process.env.TESSERA_SAMPLE_SCALE = String(scale);
const postgresUrl = inject('postgresUrl');

/** The same queries, the same generated rows, DuckDB and PostgreSQL: identical answers. */
const queries = engineQueries;

describe.skipIf(!postgresUrl)('DuckDB and PostgreSQL give identical results', () => {
  let server: TestServer;
  let duck: ReturnType<typeof client>;
  let postgres: ReturnType<typeof client>;
  const database = `tessera_sample_${process.pid}_${Date.now()}`;

  beforeAll(async () => {
    server = await startTestServer();
    const baseUrl = await listen(server);
    const file = sampleDatabaseFile(server.config.dataDir);
    await ensureSampleDatabase(file, scale);
    const admin = new pg.Client({ connectionString: postgresUrl! });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    const url = new URL(postgresUrl!);
    url.pathname = `/${database}`;
    await copySampleToPostgres(file, { connectionString: url.toString() });

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
          user: decodeURIComponent(url.username) || 'postgres',
          ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
        },
      },
    });
    const pgDeployment = created.json().id as number;
    await copyDemoModel(server, pgDeployment);
    const ctx = { securityContext: { serviceCloud: { groups: ['admin'] } } };
    duck = client(baseUrl, server.demoDeploymentId, await tokenFor(server, server.demoDeploymentId, ctx));
    postgres = client(baseUrl, pgDeployment, await tokenFor(server, pgDeployment, ctx));
  });
  afterAll(async () => {
    await server?.close();
    const admin = new pg.Client({ connectionString: postgresUrl! });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  for (const [name, query] of Object.entries(queries)) {
    it(name, async () => {
      const [d, p] = await Promise.all([duck.load(query), postgres.load(query)]);
      expect(rawResponse(d).results[0].dbType).toBe('duckdb');
      expect(rawResponse(p).results[0].dbType).toBe('postgres');
      expect(d.rawData().length).toBeGreaterThan(0);
      expect(normalizeNumbers(p.rawData())).toEqual(normalizeNumbers(d.rawData()));
    });
  }

  it('counts each order once under fan-out on both engines', async () => {
    const q = { measures: ['orders.count', 'line_items.count'] };
    const [d, p] = await Promise.all([duck.load(q), postgres.load(q)]);
    const [row] = d.rawData();
    expect(Number(row['orders.count'])).toBe(Math.max(500, Math.round(1_000_000 * scale)));
    expect(Number(row['line_items.count'])).toBeGreaterThan(Number(row['orders.count']));
    expect(p.rawData()).toEqual(d.rawData());
  });
});

if (!postgresUrl)
  describe.skip(`PostgreSQL unreachable: engine comparison skipped (${path.basename(import.meta.filename)})`, () => {});
