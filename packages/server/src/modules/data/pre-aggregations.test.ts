import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bearer, startReplica, startTestServer, type TestServer } from '../../../test/harness.ts';
import type { DeploymentRow } from '../../db/schema.ts';
import { cubesql } from './cubesql/test-support.ts';
import type { RollupTarget } from './pre-aggregations/targets.ts';
import { normalizeNumbers, tokenFor } from './test-support.ts';

const postgresUrl = inject('postgresUrl');
const MARIADB = { host: '127.0.0.1', port: 3306, user: 'root' };

async function mariadbUp(): Promise<boolean> {
  try {
    await (await mysql.createConnection({ ...MARIADB, connectTimeout: 2000 })).end();
    return true;
  } catch {
    return false;
  }
}
const mariadb = await mariadbUp();

/**
 * Pre-aggregations (issue 15 item 5, issue 24) end to end on DuckDB, PostgreSQL and MySQL/MariaDB
 * (the real MariaDB at 127.0.0.1:3306, skipped when it does not answer): rollups built by the
 * refresher, /v1/load answering from them with `usedPreAggregations`, the same rows as raw and as
 * hand-written SQL, refresh keys, partitions, row-level security, and the refresh lease shared by
 * two application instances on one store.
 */
const MODEL = `
cubes:
  - name: orders
    sql_table: orders
    refresh_key:
      every: 1 hour
    measures:
      - { name: count, type: count }
      - { name: amount, type: sum, sql: amount }
      - { name: biggest, type: max, sql: amount }
      - { name: customers, type: count_distinct, sql: customer_id }
    dimensions:
      - { name: id, type: number, sql: id, primary_key: true }
      - { name: status, type: string, sql: status }
      - { name: customer_id, type: number, sql: customer_id }
      - { name: created_at, type: time, sql: created_at }
    pre_aggregations:
      - name: daily
        measures: [count, amount, biggest]
        dimensions: [status, customer_id]
        time_dimension: created_at
        granularity: day
        refresh_key:
          sql: SELECT count(*) FROM orders
    access_policy:
      - group: '*'
        row_level:
          filters:
            - { member: customer_id, operator: equals, values: ['{ securityContext.customer }'] }
      - group: admin

  - name: monthly_orders
    sql_table: orders
    measures:
      - { name: count, type: count }
      - { name: amount, type: sum, sql: amount }
    dimensions:
      - { name: id, type: number, sql: id, primary_key: true }
      - { name: status, type: string, sql: status }
      - { name: created_at, type: time, sql: created_at }
    pre_aggregations:
      - name: by_day
        measures: [count, amount]
        dimensions: [status]
        time_dimension: created_at
        granularity: day
        partition_granularity: month
        build_range_start: { sql: "SELECT '2024-01-01'" }
        build_range_end: { sql: "SELECT '2024-03-31'" }
        refresh_key: { every: 1 day }

views:
  - name: order_facts
    cubes:
      - join_path: orders
        includes: [count, amount, customers, status, created_at]
    access_policy:
      - group: '*'
        row_level:
          filters:
            - { member: status, operator: equals, values: [completed] }
      - group: admin

  - name: early_orders
    cubes:
      - join_path: orders
        includes: [count, amount, status, id]
    access_policy:
      - group: '*'
        row_level:
          filters:
            - { member: id, operator: lt, values: ['5'] }
`;

const ROWS = [
  [1, 1, 'completed', 120.5, '2024-01-03 10:00:00'],
  [2, 1, 'pending', 40, '2024-01-15 23:30:00'],
  [3, 2, 'completed', 200, '2024-01-31 23:00:00'],
  [4, 3, 'cancelled', 15.25, '2024-02-01 02:00:00'],
  [5, 2, 'completed', 80, '2024-02-10 12:00:00'],
  [6, 4, 'pending', 60.75, '2024-02-20 08:00:00'],
  [7, 3, 'completed', 150, '2024-03-05 16:00:00'],
  [8, 4, 'completed', 99.5, '2024-03-06 09:00:00'],
];
const insert = (rows: unknown[][]) =>
  `INSERT INTO orders VALUES ${rows
    .map((r) => `(${r[0]}, ${r[1]}, '${r[2]}', ${r[3]}, TIMESTAMP '${r[4]}')`)
    .join(', ')}`;
// MySQL's TIMESTAMP converts through the session zone: DATETIME is its zone-less timestamp
const DDL = (double: string, time = 'TIMESTAMP') =>
  `CREATE TABLE orders (id INTEGER, customer_id INTEGER, status TEXT, amount ${double}, created_at ${time})`;

type Engine = 'duckdb' | 'postgres' | 'mysql';

/** Hand-written `date_trunc('month' | 'week', column)` per engine (weeks start on Monday, as Cube's). */
const truncate: Record<Engine, (unit: 'month' | 'week', column: string) => string> = {
  duckdb: (unit, column) => `date_trunc('${unit}', ${column})`,
  postgres: (unit, column) => `date_trunc('${unit}', ${column})`,
  mysql: (unit, column) =>
    unit === 'month'
      ? `DATE_FORMAT(${column}, '%Y-%m-01')`
      : `DATE(${column}) - INTERVAL WEEKDAY(${column}) DAY`,
};

interface Setup {
  deployment: DeploymentRow;
  admin: string;
  /** SQL on the deployment's engine, through the server's own connection. */
  direct(sql: string): Promise<Record<string, unknown>[]>;
  /** The engine's `date_trunc` for hand-written SQL. */
  trunc(unit: 'month' | 'week', column: string): string;
  /** What rollup table names start with: `tessera_pre_aggregations.`, `tessera_pa_` on MySQL. */
  prefix: string;
}

let server: TestServer;
const engines: Partial<Record<Engine, Setup>> = {};
const database = `tessera_pre_agg_${process.pid}_${Date.now()}`;
const mysqlSettings = { type: 'mysql', ...MARIADB, database };

/** The test database on the PostgreSQL of `postgresUrl`, as a data source. */
function postgresSettings() {
  const url = new URL(postgresUrl!);
  return {
    type: 'postgres',
    host: url.hostname,
    port: Number(url.port || 5432),
    database,
    user: decodeURIComponent(url.username) || 'postgres',
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
}

/** A rollup table name of this engine, the rest of it matching `rest`. */
const rollupTable = (setup: Setup, rest: string) =>
  new RegExp(`^${setup.prefix.replace(/\./g, '\\.')}${rest}`);

/** A setup for a deployment, its rollup target's driver answering `direct`. */
async function setupOf(engine: Engine, deployment: DeploymentRow): Promise<Setup> {
  const t = await target(deployment);
  return {
    deployment,
    admin: await tokenFor(server, deployment.id, {
      securityContext: { serviceCloud: { groups: ['admin'] } },
    }),
    direct: (sql) => t.driver.query(sql, []),
    trunc: truncate[engine],
    prefix: t.qualify(''),
  };
}

async function deploy(
  name: string,
  dataSource: Record<string, unknown>,
  model = MODEL,
): Promise<DeploymentRow> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/deployments',
    headers: bearer(server.adminKey),
    payload: { name, dataSource },
  });
  if (res.statusCode !== 200) throw new Error(`deployment: ${res.statusCode} ${res.body}`);
  const id = res.json().id as number;
  await server.store.db
    .insertInto('model_files')
    .values({ deployment_id: id, branch: 'main', path: 'model/orders.yml', content: model })
    .execute();
  return server.services.deployments.require(server.tenantId, id);
}

async function target(deployment: DeploymentRow): Promise<RollupTarget> {
  return server.services.preAggregations.target(deployment);
}

async function load(setup: Setup, query: Record<string, unknown>, token = setup.admin) {
  const res = await server.app.inject({
    method: 'POST',
    url: `/data/${setup.deployment.id}/cubejs-api/v1/load`,
    headers: { authorization: token },
    payload: { query: { ...query, renewQuery: true } },
  });
  if (res.statusCode !== 200) throw new Error(`load: ${res.statusCode} ${res.body}`);
  return res.json() as {
    data: Record<string, unknown>[];
    usedPreAggregations: Record<string, { targetTableName: string; lastUpdatedAt: number }>;
    external: boolean;
  };
}

beforeAll(async () => {
  // The background pass stays off: each test drives refresh() itself.
  server = await startTestServer({ preAggregations: { refreshMs: 0 } });
  const file = path.join(server.config.dataDir, 'shop.duckdb');
  const instance = await DuckDBInstance.create(file);
  const conn = await instance.connect();
  await conn.run(DDL('DOUBLE'));
  await conn.run(insert(ROWS));
  conn.closeSync();
  instance.closeSync();
  engines.duckdb = await setupOf('duckdb', await deploy('duck', { type: 'duckdb', path: 'shop.duckdb' }));
  if (postgresUrl) {
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    engines.postgres = await setupOf('postgres', await deploy('warehouse', postgresSettings()));
    await engines.postgres.direct(DDL('DOUBLE PRECISION'));
    await engines.postgres.direct(insert(ROWS));
  }
  if (mariadb) {
    const admin = await mysql.createConnection(MARIADB);
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    engines.mysql = await setupOf('mysql', await deploy('maria', mysqlSettings));
    await engines.mysql.direct(DDL('DOUBLE', 'DATETIME'));
    await engines.mysql.direct(insert(ROWS));
  }
});

afterAll(async () => {
  await server?.close();
  if (postgresUrl) {
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  }
  if (mariadb) {
    // the rollup tables live in the deployment's database (targets.ts): dropped with it
    const admin = await mysql.createConnection(MARIADB);
    await admin.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin.end();
  }
});

const monthly = {
  measures: ['orders.count', 'orders.amount', 'orders.biggest'],
  timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
};

/** A suite on an engine that is not there is skipped (PostgreSQL without its URL, MariaDB down). */
const unavailable = (engine: Engine) =>
  (engine === 'postgres' && !postgresUrl) || (engine === 'mysql' && !mariadb);

describe.each(['duckdb', 'postgres', 'mysql'] as const)('pre-aggregations on %s', (engine) => {
  const skip = unavailable(engine);
  const setup = () => engines[engine]!;

  it.skipIf(skip)('answers raw until built, then from the rollup with the same rows', async () => {
    const before = await load(setup(), monthly);
    expect(before.usedPreAggregations).toEqual({});

    const report = await server.services.preAggregations.refresh(setup().deployment);
    expect(report.leased).toBe(true);
    // the unpartitioned rollup, and one table per month of the partitioned one
    expect(report.built).toHaveLength(4);

    const after = await load(setup(), monthly);
    const used = Object.values(after.usedPreAggregations);
    expect(used).toHaveLength(1);
    expect(used[0].targetTableName).toMatch(rollupTable(setup(), 'orders_daily_[0-9a-f]{10}$'));
    expect(used[0].lastUpdatedAt).toBeGreaterThan(Date.now() - 60_000);
    expect(after.external).toBe(false);
    expect(after.data).toEqual(before.data);
    const hand = await setup().direct(
      `SELECT count(*) AS c, sum(amount) AS s, max(amount) AS b FROM orders
       GROUP BY ${setup().trunc('month', 'created_at')} ORDER BY ${setup().trunc('month', 'created_at')}`,
    );
    const triple = (r: Record<string, unknown>) => [
      r['orders.count'],
      r['orders.amount'],
      r['orders.biggest'],
    ];
    expect(normalizeNumbers(after.data).map(triple)).toEqual(
      normalizeNumbers(
        hand.map((r) => ({
          'orders.count': String(r.c),
          'orders.amount': String(r.s),
          'orders.biggest': String(r.b),
        })),
      ).map(triple),
    );
    expect(after.data.map((r) => r['orders.created_at.month'])).toEqual([
      '2024-01-01T00:00:00.000',
      '2024-02-01T00:00:00.000',
      '2024-03-01T00:00:00.000',
    ]);
    // the rollup table really is what answered: it holds one row per day, status and customer
    const [rows] = await setup().direct(`SELECT count(*) AS n FROM ${used[0].targetTableName}`);
    expect(Number(rows.n)).toBe(8);
  });

  it.skipIf(skip)('a query the rollup cannot answer runs raw, without usedPreAggregations', async () => {
    await server.services.preAggregations.refresh(setup().deployment);
    const distinct = await load(setup(), { measures: ['orders.customers'], dimensions: ['orders.status'] });
    expect(distinct.usedPreAggregations).toEqual({});
    const byId = await load(setup(), { measures: ['orders.count'], dimensions: ['orders.id'], limit: 3 });
    expect(byId.usedPreAggregations).toEqual({});
    const hourly = await load(setup(), {
      measures: ['orders.count'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'hour' }],
    });
    expect(hourly.usedPreAggregations).toEqual({});
    expect(hourly.data).toHaveLength(8);
  });

  it.skipIf(skip)('row-level security on a rollup dimension is applied on top of the rollup', async () => {
    await server.services.preAggregations.refresh(setup().deployment);
    const token = await tokenFor(server, setup().deployment.id, { securityContext: { customer: 2 } });
    const res = await load(
      setup(),
      { measures: ['orders.count', 'orders.amount'], dimensions: ['orders.status'] },
      token,
    );
    expect(Object.keys(res.usedPreAggregations)).toHaveLength(1);
    expect(res.data).toEqual([{ 'orders.status': 'completed', 'orders.count': '2', 'orders.amount': '280' }]);
  });

  it.skipIf(skip)("a query through a view of one cube reads that cube's rollup", async () => {
    await server.services.preAggregations.refresh(setup().deployment);
    const res = await load(setup(), {
      measures: ['order_facts.count', 'order_facts.amount'],
      timeDimensions: [{ dimension: 'order_facts.created_at', granularity: 'month' }],
    });
    expect(Object.keys(res.usedPreAggregations)).toEqual([
      expect.stringMatching(rollupTable(setup(), 'orders_daily_')),
    ]);
    const hand = await setup().direct(
      `SELECT count(*) AS c, sum(amount) AS s FROM orders
       GROUP BY ${setup().trunc('month', 'created_at')} ORDER BY ${setup().trunc('month', 'created_at')}`,
    );
    expect(normalizeNumbers(res.data).map((r) => [r['order_facts.count'], r['order_facts.amount']])).toEqual(
      normalizeNumbers(hand.map((r) => ({ c: String(r.c), s: String(r.s) }))).map((r) => [r.c, r.s]),
    );
    expect(res.data.map((r) => r['order_facts.created_at.month'])).toEqual([
      '2024-01-01T00:00:00.000',
      '2024-02-01T00:00:00.000',
      '2024-03-01T00:00:00.000',
    ]);
    // a member the rollup lacks: raw
    const distinct = await load(setup(), { measures: ['order_facts.customers'] });
    expect(distinct.usedPreAggregations).toEqual({});
    expect(distinct.data).toEqual([{ 'order_facts.customers': '4' }]);
  });

  it.skipIf(skip)(
    "the view's policy and its cube's both narrow a view query read from the rollup",
    async () => {
      await server.services.preAggregations.refresh(setup().deployment);
      const token = await tokenFor(server, setup().deployment.id, { securityContext: { customer: 1 } });
      const query = {
        measures: ['order_facts.count', 'order_facts.amount'],
        dimensions: ['order_facts.status'],
      };
      const viaView = await load(setup(), query, token);
      expect(Object.keys(viaView.usedPreAggregations)).toHaveLength(1);
      const hand = await setup().direct(
        `SELECT status, count(*) AS c, sum(amount) AS s FROM orders
       WHERE customer_id = 1 AND status = 'completed' GROUP BY status`,
      );
      expect(hand).toHaveLength(1);
      expect(normalizeNumbers(viaView.data)).toEqual(
        normalizeNumbers(
          hand.map((r) => ({
            'order_facts.status': r.status,
            'order_facts.count': String(r.c),
            'order_facts.amount': String(r.s),
          })),
        ),
      );
      // the cube alone lets this customer see a pending order too: the view narrowed, from the rollup
      const direct = await load(
        setup(),
        { measures: ['orders.count'], dimensions: ['orders.status'], order: { 'orders.status': 'asc' } },
        token,
      );
      expect(direct.data.map((r) => r['orders.status'])).toEqual(['completed', 'pending']);
    },
  );

  it.skipIf(skip)('a view whose policy filters a member outside the rollup runs raw, narrowed', async () => {
    await server.services.preAggregations.refresh(setup().deployment);
    const res = await load(setup(), {
      measures: ['early_orders.count', 'early_orders.amount'],
      dimensions: ['early_orders.status'],
      order: { 'early_orders.status': 'asc' },
    });
    expect(res.usedPreAggregations).toEqual({});
    const hand = await setup().direct(
      `SELECT status, count(*) AS c, sum(amount) AS s FROM orders WHERE id < 5 GROUP BY status ORDER BY status`,
    );
    expect(normalizeNumbers(res.data)).toEqual(
      normalizeNumbers(
        hand.map((r) => ({
          'early_orders.status': r.status,
          'early_orders.count': String(r.c),
          'early_orders.amount': String(r.s),
        })),
      ),
    );
  });

  it.skipIf(skip)(
    '/v1/cubesql reads the rollup for a SELECT that compiles to a query it answers',
    async () => {
      await server.services.preAggregations.refresh(setup().deployment);
      const sql = (where: string) =>
        `SELECT status, MEASURE(count) AS n, MEASURE(amount) AS total FROM orders ${where} GROUP BY 1 ORDER BY 1`;
      const hand = async () =>
        normalizeNumbers(
          (
            await setup().direct(
              `SELECT status, count(*) AS n, sum(amount) AS total FROM orders GROUP BY status ORDER BY status`,
            )
          ).map((r) => ({ s: r.status, n: String(r.n), t: String(r.total) })),
        ).map((r) => [r.s, r.n, r.t]);
      const asRows = (rows: unknown[][]) =>
        normalizeNumbers(rows.map((r) => ({ s: r[0], n: String(r[1]), t: String(r[2]) }))).map((r) => [
          r.s,
          r.n,
          r.t,
        ]);
      const built = await hand();
      const first = await cubesql(server, setup().deployment.id, setup().admin, sql(''));
      expect(first.error).toBeNull();
      expect(asRows(first.rows)).toEqual(built);
      // a row the rollup was not built with: a SELECT the rollup answers does not see it (another
      // query, so no cached result), one it cannot answer (a distinct count) does
      await setup().direct(insert([[9, 1, 'completed', 1000, '2024-03-20 10:00:00']]));
      try {
        const stale = await cubesql(
          server,
          setup().deployment.id,
          setup().admin,
          sql("WHERE status IN ('completed', 'pending', 'cancelled')"),
        );
        expect(asRows(stale.rows)).toEqual(built);
        expect(await hand()).not.toEqual(built);
        const distinct = await cubesql(
          server,
          setup().deployment.id,
          setup().admin,
          'SELECT MEASURE(customers) AS c, MEASURE(count) AS n FROM orders',
        );
        expect(distinct.rows.map((r) => r.map(String))).toEqual([['4', '9']]);
      } finally {
        await setup().direct('DELETE FROM orders WHERE id = 9');
        await server.services.preAggregations.refresh(setup().deployment);
      }
    },
  );

  it.skipIf(skip)(
    '/v1/sql lists the rollup its SQL reads in preAggregations, and none otherwise',
    async () => {
      await server.services.preAggregations.refresh(setup().deployment);
      const sql = async (query: Record<string, unknown>) => {
        const res = await server.app.inject({
          method: 'POST',
          url: `/data/${setup().deployment.id}/cubejs-api/v1/sql`,
          headers: { authorization: setup().admin },
          payload: { query },
        });
        expect(res.statusCode, res.body).toBe(200);
        return res.json().sql as { sql: [string, unknown[]]; preAggregations: Record<string, unknown>[] };
      };
      const used = Object.keys((await load(setup(), monthly)).usedPreAggregations);
      expect(used).toHaveLength(1);
      const rolled = await sql(monthly);
      expect(rolled.sql[0]).toContain(used[0]);
      expect(rolled.preAggregations).toEqual([
        expect.objectContaining({
          preAggregationId: 'orders.daily',
          type: 'rollup',
          tableName: used[0],
          granularity: 'day',
          partitionGranularity: null,
          external: false,
        }),
      ]);
      const raw = await sql({ measures: ['orders.customers'], dimensions: ['orders.status'] });
      expect(raw.preAggregations).toEqual([]);
      expect(raw.sql[0]).not.toContain(setup().prefix);
    },
  );

  it.skipIf(skip)('rebuilds when the refresh key SQL answers differently after a data change', async () => {
    await server.services.preAggregations.refresh(setup().deployment);
    const first = await load(setup(), monthly);
    const again = await server.services.preAggregations.refresh(setup().deployment);
    expect(again.built).toEqual([]); // nothing changed: nothing rebuilt
    await setup().direct(insert([[9, 1, 'completed', 1000, '2024-03-20 10:00:00']]));
    try {
      const report = await server.services.preAggregations.refresh(setup().deployment);
      expect(report.built).toHaveLength(1);
      expect(report.built[0]).toMatch(/orders_daily/);
      const second = await load(setup(), monthly);
      expect(Object.keys(second.usedPreAggregations)).toEqual(report.built);
      expect(Object.keys(second.usedPreAggregations)).not.toEqual(Object.keys(first.usedPreAggregations));
      expect(second.data[2]).toMatchObject({ 'orders.count': '3', 'orders.biggest': '1000' });
    } finally {
      await setup().direct('DELETE FROM orders WHERE id = 9');
      await server.services.preAggregations.refresh(setup().deployment);
    }
  });

  it.skipIf(skip)('partitions: a query reads the partitions of its date range only', async () => {
    await server.services.preAggregations.refresh(setup().deployment);
    const q = (dateRange: string[]) => ({
      measures: ['monthly_orders.count', 'monthly_orders.amount'],
      dimensions: ['monthly_orders.status'],
      timeDimensions: [{ dimension: 'monthly_orders.created_at', granularity: 'week', dateRange }],
      order: { 'monthly_orders.created_at': 'asc', 'monthly_orders.status': 'asc' },
    });
    const feb = await load(setup(), q(['2024-02-01', '2024-02-29']));
    expect(Object.keys(feb.usedPreAggregations)).toEqual([
      expect.stringMatching(rollupTable(setup(), 'monthly_orders_by_day_20240201_')),
    ]);
    const span = await load(setup(), q(['2024-01-15', '2024-02-29']));
    expect(Object.keys(span.usedPreAggregations)).toHaveLength(2);
    const hand = await setup().direct(
      `SELECT status, count(*) AS c, sum(amount) AS s FROM orders
       WHERE created_at >= TIMESTAMP '2024-01-15 00:00:00' AND created_at < TIMESTAMP '2024-03-01 00:00:00'
       GROUP BY ${setup().trunc('week', 'created_at')}, status
       ORDER BY ${setup().trunc('week', 'created_at')}, status`,
    );
    expect(
      normalizeNumbers(span.data).map((r) => [
        r['monthly_orders.status'],
        r['monthly_orders.count'],
        r['monthly_orders.amount'],
      ]),
    ).toEqual(
      normalizeNumbers(hand.map((r) => ({ s: r.status, c: String(r.c), a: String(r.s) }))).map((r) => [
        r.s,
        r.c,
        r.a,
      ]),
    );
    // outside the build range: answered raw
    const outside = await load(setup(), q(['2024-03-01', '2024-04-30']));
    expect(outside.usedPreAggregations).toEqual({});
    // no date range on a ranged rollup: rows outside the range would be missing, so raw
    const all = await load(setup(), { measures: ['monthly_orders.count'] });
    expect(all.usedPreAggregations).toEqual({});
    expect(all.data).toEqual([{ 'monthly_orders.count': '8' }]);
  });
});

describe('refresh lease', () => {
  it.skipIf(!postgresUrl)('two application instances on one store build each table once', async () => {
    const setup = engines.postgres!;
    await server.store.db
      .deleteFrom('pre_aggregation_tables')
      .where('deployment_id', '=', setup.deployment.id)
      .execute();
    const buildsBefore = await server.services.preAggregations['deps'].repository.builds(setup.deployment.id);
    const replica = await startReplica(server);
    try {
      const reports = await Promise.all([
        server.services.preAggregations.refresh(setup.deployment),
        replica.services.preAggregations.refresh(setup.deployment),
      ]);
      const built = reports.flatMap((r) => r.built);
      // one replica leased and built everything; the other found the lease taken (or, if it came
      // second, found every table current)
      expect(built).toHaveLength(4);
      expect(new Set(built).size).toBe(4);
      const builds = await server.services.preAggregations['deps'].repository.builds(setup.deployment.id);
      expect(builds - buildsBefore).toBe(4);
      const rows = await server.store.db
        .selectFrom('pre_aggregation_tables')
        .select('table_name')
        .where('deployment_id', '=', setup.deployment.id)
        .execute();
      expect(rows.map((r) => r.table_name).sort()).toEqual([...built].sort());
      // the replica serves from the tables the other one built
      const res = await replica.app.inject({
        method: 'POST',
        url: `/data/${setup.deployment.id}/cubejs-api/v1/load`,
        headers: { authorization: setup.admin },
        payload: { query: monthly },
      });
      expect(Object.keys(res.json().usedPreAggregations)).toHaveLength(1);
    } finally {
      await replica.close();
    }
  });
});

describe('refresh lease row', () => {
  it('one owner at a time; a held lease makes the other replica skip the deployment', async () => {
    const setup = engines.duckdb!;
    const repository = server.services.preAggregations['deps'].repository;
    const id = setup.deployment.id;
    const soon = () => new Date(Date.now() + 60_000);
    expect(await repository.acquire(id, 'replica-a', soon())).toBe(true);
    expect(await repository.acquire(id, 'replica-b', soon())).toBe(false);
    expect(await repository.acquire(id, 'replica-a', soon())).toBe(true); // renewal by its holder
    // while replica-a holds it, this server builds nothing, even with every table missing
    await server.store.db.deleteFrom('pre_aggregation_tables').where('deployment_id', '=', id).execute();
    // The matcher keeps a deployment's pointer rows for a second (matcher.ts); rows deleted behind
    // the refresher's back, as here, are seen once that has passed.
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await server.services.preAggregations.refresh(setup.deployment)).toEqual({
      leased: false,
      built: [],
    });
    const used = await load(setup, monthly);
    expect(used.usedPreAggregations).toEqual({});
    await repository.release(id, 'replica-a');
    const report = await server.services.preAggregations.refresh(setup.deployment);
    expect(report).toMatchObject({ leased: true });
    expect(report.built).toHaveLength(4);
    // a lease whose holder died (expired) is taken over
    expect(await repository.acquire(id, 'replica-b', new Date(Date.now() - 1))).toBe(true);
    expect(await repository.acquire(id, 'replica-c', soon())).toBe(true);
    await repository.release(id, 'replica-c');
  });
});

describe('background refresh', () => {
  it.skipIf(!postgresUrl)(
    'a replica started with a refresh interval builds missing rollups by itself',
    async () => {
      const setup = engines.postgres!;
      const tables = () =>
        server.store.db
          .selectFrom('pre_aggregation_tables')
          .select('table_name')
          .where('deployment_id', '=', setup.deployment.id)
          .execute();
      await server.store.db
        .deleteFrom('pre_aggregation_tables')
        .where('deployment_id', '=', setup.deployment.id)
        .execute();
      const replica = await startReplica(server, { config: { preAggregations: { refreshMs: 300 } } });
      try {
        const deadline = Date.now() + 20_000;
        while ((await tables()).length < 4 && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 100));
        expect(await tables()).toHaveLength(4);
      } finally {
        await replica.close();
      }
    },
  );
});

describe('model errors in pre_aggregations', () => {
  it('name the file, line and pre-aggregation, and the query answers 400', async () => {
    const bad = MODEL.replace('      - name: daily\n', '      - name: daily\n        type: original_sql\n');
    const dep = await deploy('bad', { type: 'duckdb', path: 'shop.duckdb' }, bad);
    const token = await tokenFor(server, dep.id);
    const res = await server.app.inject({
      method: 'POST',
      url: `/data/${dep.id}/cubejs-api/v1/load`,
      headers: { authorization: token },
      payload: { query: { measures: ['orders.count'] } },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(
      /model\/orders\.yml:\d+.*orders.*daily.*type original_sql is not supported/s,
    );
    // Issue 15: only the cube with the error is unavailable; the other cube keeps serving.
    const other = await server.app.inject({
      method: 'POST',
      url: `/data/${dep.id}/cubejs-api/v1/load`,
      headers: { authorization: token },
      payload: { query: { measures: ['monthly_orders.count'] } },
    });
    expect(other.statusCode, other.body).toBe(200);
  });
});

/**
 * Rollups over joins (Cube's rollups naming members of joined cubes): built from the planner's
 * SQL for their members, refreshed when their refresh key (here on the joined table) changes, and
 * answering /v1/load with every row-level policy the raw query applies, the joined cube's too.
 */
const JOINED_MODEL = `
cubes:
  - name: orders
    sql_table: orders
    joins:
      - name: customers
        relationship: many_to_one
        sql: "{CUBE}.customer_id = {customers}.id"
    measures:
      - { name: count, type: count }
      - { name: amount, type: sum, sql: amount }
    dimensions:
      - { name: id, type: number, sql: id, primary_key: true }
      - { name: status, type: string, sql: status }
      - { name: created_at, type: time, sql: created_at }
    pre_aggregations:
      - name: by_country
        measures: [count, amount]
        dimensions: [status, customers.country]
        time_dimension: created_at
        granularity: day
        refresh_key:
          sql: SELECT count(*) FROM customers WHERE country = 'US'
      - name: by_name
        measures: [count]
        dimensions: [customers.name]

  - name: customers
    sql_table: customers
    dimensions:
      - { name: id, type: number, sql: id, primary_key: true }
      - { name: name, type: string, sql: name }
      - { name: country, type: string, sql: country }
    access_policy:
      - group: '*'
        row_level:
          filters:
            - { member: country, operator: equals, values: ['{ securityContext.country }'] }
      - group: admin
`;
const CUSTOMERS = `CREATE TABLE customers (id INTEGER, name TEXT, country TEXT);
INSERT INTO customers VALUES (1, 'Alice', 'US'), (2, 'Bob', 'DE'), (3, 'Carol', 'US'), (4, 'Dan', 'FR')`;

describe.each(['duckdb', 'postgres', 'mysql'] as const)('joined rollups on %s', (engine) => {
  const skip = unavailable(engine);
  let joined: Setup;

  beforeAll(async () => {
    if (skip) return;
    let deployment: DeploymentRow;
    if (engine === 'duckdb') {
      const instance = await DuckDBInstance.create(path.join(server.config.dataDir, 'joined.duckdb'));
      const conn = await instance.connect();
      await conn.run(DDL('DOUBLE'));
      await conn.run(insert(ROWS));
      for (const statement of CUSTOMERS.split(';\n')) await conn.run(statement);
      conn.closeSync();
      instance.closeSync();
      deployment = await deploy('duck-joined', { type: 'duckdb', path: 'joined.duckdb' }, JOINED_MODEL);
    } else if (engine === 'mysql') {
      // the orders of the suite above, in the same database
      deployment = await deploy('maria-joined', mysqlSettings, JOINED_MODEL);
      const driver = (await target(deployment)).driver;
      for (const statement of CUSTOMERS.split(';\n')) await driver.query(statement, []);
    } else {
      deployment = await deploy('warehouse-joined', postgresSettings(), JOINED_MODEL);
      const driver = (await target(deployment)).driver;
      for (const statement of CUSTOMERS.split(';\n')) await driver.query(statement, []);
    }
    joined = await setupOf(engine, deployment);
  });

  const byCountry = {
    measures: ['orders.count', 'orders.amount'],
    dimensions: ['customers.country'],
    timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
    order: [
      ['orders.created_at', 'asc'],
      ['customers.country', 'asc'],
    ],
  };

  it.skipIf(skip)('a rollup over a join is built, answers with the raw rows, and is refreshed', async () => {
    const before = await load(joined, byCountry);
    expect(before.usedPreAggregations).toEqual({});
    const report = await server.services.preAggregations.refresh(joined.deployment);
    expect(report.built).toEqual([
      expect.stringMatching(/orders_by_country_/),
      expect.stringMatching(/orders_by_name_/),
    ]);
    const after = await load(joined, byCountry);
    expect(Object.keys(after.usedPreAggregations)).toEqual([expect.stringMatching(/orders_by_country_/)]);
    expect(after.data).toEqual(before.data);
    expect(normalizeNumbers(after.data).slice(0, 2)).toEqual([
      {
        'customers.country': 'DE',
        'orders.created_at.month': '2024-01-01T00:00:00.000',
        'orders.created_at': '2024-01-01T00:00:00.000',
        'orders.count': '1',
        'orders.amount': '200',
      },
      {
        'customers.country': 'US',
        'orders.created_at.month': '2024-01-01T00:00:00.000',
        'orders.created_at': '2024-01-01T00:00:00.000',
        'orders.count': '2',
        'orders.amount': '160.5',
      },
    ]);

    // Dan moves to the US: the refresh key on the joined table changes, the rollup is rebuilt
    await joined.direct("UPDATE customers SET country = 'US' WHERE id = 4");
    try {
      const again = await server.services.preAggregations.refresh(joined.deployment);
      expect(again.built).toEqual([expect.stringMatching(/orders_by_country_/)]);
      const moved = await load(joined, { measures: ['orders.count'], dimensions: ['customers.country'] });
      expect(Object.keys(moved.usedPreAggregations)).toEqual(again.built);
      expect(moved.data).toEqual([
        { 'customers.country': 'US', 'orders.count': '6' },
        { 'customers.country': 'DE', 'orders.count': '2' },
      ]);
    } finally {
      await joined.direct("UPDATE customers SET country = 'FR' WHERE id = 4");
      await server.services.preAggregations.refresh(joined.deployment);
    }
  });

  it.skipIf(skip)("the joined cube's row-level filter is applied on top of the rollup", async () => {
    await server.services.preAggregations.refresh(joined.deployment);
    const us = await tokenFor(server, joined.deployment.id, { securityContext: { country: 'US' } });
    const res = await load(
      joined,
      { measures: ['orders.count', 'orders.amount'], dimensions: ['customers.country'] },
      us,
    );
    expect(Object.keys(res.usedPreAggregations)).toEqual([expect.stringMatching(/orders_by_country_/)]);
    expect(normalizeNumbers(res.data)).toEqual([
      { 'customers.country': 'US', 'orders.count': '4', 'orders.amount': '325.75' },
    ]);
  });

  it.skipIf(skip)('a policy on a member the rollup lacks runs the query raw, still filtered', async () => {
    await server.services.preAggregations.refresh(joined.deployment);
    const query = {
      measures: ['orders.count'],
      dimensions: ['customers.name'],
      order: { 'customers.name': 'asc' },
    };
    const all = await load(joined, query);
    expect(Object.keys(all.usedPreAggregations)).toEqual([expect.stringMatching(/orders_by_name_/)]);
    expect(all.data).toHaveLength(4);
    const us = await tokenFor(server, joined.deployment.id, { securityContext: { country: 'US' } });
    const res = await load(joined, query, us);
    expect(res.usedPreAggregations).toEqual({});
    expect(res.data).toEqual([
      { 'customers.name': 'Alice', 'orders.count': '2' },
      { 'customers.name': 'Carol', 'orders.count': '2' },
    ]);
  });
});

/**
 * Values the build inlines into its SQL (CREATE TABLE AS takes no parameters) keep their text on
 * every engine: on MySQL a backslash in a string literal escapes the next character (`\n` is a
 * newline), so a case label `C:\big\new` built naively would be stored otherwise than raw reads it.
 */
const LABEL_MODEL = `
cubes:
  - name: sized
    sql_table: orders
    measures:
      - { name: count, type: count }
    dimensions:
      - { name: id, type: number, sql: id, primary_key: true }
      - name: folder
        type: string
        case:
          when:
            - sql: "{CUBE}.amount >= 100"
              label: 'C:\\big\\new'
          else:
            label: 'it''s \\small'
    pre_aggregations:
      - name: by_folder
        measures: [count]
        dimensions: [folder]
`;

describe.each(['duckdb', 'postgres', 'mysql'] as const)('rollup labels on %s', (engine) => {
  it.skipIf(unavailable(engine))('a label with backslashes and quotes reads as raw does', async () => {
    const dataSource =
      engine === 'duckdb'
        ? { type: 'duckdb', path: 'shop.duckdb' }
        : engine === 'mysql'
          ? mysqlSettings
          : postgresSettings();
    const setup = await setupOf(engine, await deploy(`labels-${engine}`, dataSource, LABEL_MODEL));
    const query = {
      measures: ['sized.count'],
      dimensions: ['sized.folder'],
      order: { 'sized.folder': 'asc' },
    };
    const raw = await load(setup, query);
    expect(raw.usedPreAggregations).toEqual({});
    expect(raw.data).toEqual([
      { 'sized.folder': 'C:\\big\\new', 'sized.count': '3' },
      { 'sized.folder': "it's \\small", 'sized.count': '5' },
    ]);
    expect((await server.services.preAggregations.refresh(setup.deployment)).built).toHaveLength(1);
    const rolled = await load(setup, query);
    expect(Object.keys(rolled.usedPreAggregations)).toEqual([expect.stringMatching(/sized_by_folder_/)]);
    expect(rolled.data).toEqual(raw.data);
  });
});

describe('rollup tables on MySQL', () => {
  it.skipIf(!mariadb)(
    "live in the deployment's own database, left out of its catalogue, dropped when replaced",
    async () => {
      const setup = engines.mysql!;
      await server.services.preAggregations.refresh(setup.deployment);
      const used = Object.keys((await load(setup, monthly)).usedPreAggregations);
      expect(used).toEqual([expect.stringMatching(/^tessera_pa_orders_daily_[0-9a-f]{10}$/)]);
      const inDatabase = async () =>
        (
          await setup.direct(
            `SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY 1`,
          )
        ).map((r) => r.t);
      expect(await inDatabase()).toContain(used[0]);
      const res = await server.app.inject({
        method: 'GET',
        url: `/api/v1/deployments/${setup.deployment.id}/data-source/tables`,
        headers: bearer(server.adminKey),
      });
      expect(res.statusCode, res.body).toBe(200);
      const schema = res.json().schemas.find((s: { name: string }) => s.name === database);
      expect(schema.tables.map((t: { name: string }) => t.name).sort()).toEqual(['customers', 'orders']);
      // a rebuild moves the pointer; the replaced table is dropped (here at once: dropAfterMs 0)
      const settings = server.services.preAggregations['deps'].settings;
      const dropAfter = settings.dropAfterMs;
      settings.dropAfterMs = 0;
      await setup.direct(insert([[9, 1, 'completed', 1000, '2024-03-20 10:00:00']]));
      try {
        const report = await server.services.preAggregations.refresh(setup.deployment);
        expect(report.built).toEqual([expect.stringMatching(/^tessera_pa_orders_daily_/)]);
        await new Promise((r) => setTimeout(r, 200));
        const tables = await inDatabase();
        expect(tables).toContain(report.built[0]);
        expect(tables).not.toContain(used[0]);
      } finally {
        await setup.direct('DELETE FROM orders WHERE id = 9');
        await server.services.preAggregations.refresh(setup.deployment);
        settings.dropAfterMs = dropAfter;
      }
    },
  );
});
