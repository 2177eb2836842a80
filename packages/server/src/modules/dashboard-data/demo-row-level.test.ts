import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { seedDemoDashboard } from '../../bootstrap/demo-dashboard.ts';
import { DuckDbDriver } from '../../datasources/duckdb-driver.ts';
import { sampleDatabaseFile } from '../../datasources/registry.ts';
import { copySampleToPostgres } from '../../datasources/sample/copy-to-postgres.ts';
import { ensureSampleDatabase } from '../../datasources/sample/generate.ts';
import { copyDemoModel } from '../data/test-support.ts';
import { embedApi, embedToken } from '../embed/test-support.ts';
import { widgetData } from './test-support.ts';

const scale = 0.002;
process.env.TESSERA_SAMPLE_SCALE = String(scale);
const postgresUrl = inject('postgresUrl');

type Row = Record<string, unknown>;
/** A widget's figures: row key -> value in hundredths (cents, or a count times 100). */
type Figures = Map<string, number>;

const hundredths = (v: unknown) => Math.round(Number(v) * 100);

/**
 * The six demo widgets (bootstrap/demo-dashboard.ts), each read as key -> figure, and the
 * hand-written SQL giving the same figure for every customer country straight from the sample
 * tables (the same text runs on DuckDB and PostgreSQL). `top` widgets show only the first rows of
 * their order: the SQL gives them all, and the widget must show the first ones.
 */
const widgets: Record<
  string,
  { key: (r: Row) => string; value: (r: Row) => number; sql: string; top?: number }
> = {
  revenue: {
    key: () => 'all',
    value: (r) => hundredths(r['orders.total_amount']),
    sql: `SELECT c.country, 'all' AS k, CAST(sum(o.amount) AS VARCHAR) AS v
      FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY 1, 2`,
  },
  'revenue-by-month': {
    key: (r) => String(r['orders.created_at.month']).slice(0, 7),
    value: (r) => hundredths(r['orders.total_amount']),
    sql: `SELECT c.country, substr(CAST(date_trunc('month', o.created_at) AS VARCHAR), 1, 7) AS k,
        CAST(sum(o.amount) AS VARCHAR) AS v
      FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY 1, 2`,
  },
  'revenue-by-category': {
    key: (r) => String(r['products.category']),
    value: (r) => hundredths(r['line_items.revenue']),
    sql: `SELECT c.country, p.category AS k, CAST(sum(li.quantity * li.price) AS VARCHAR) AS v
      FROM line_items li JOIN orders o ON o.id = li.order_id JOIN customers c ON c.id = o.customer_id
        JOIN products p ON p.id = li.product_id
      GROUP BY 1, 2`,
  },
  'orders-by-status': {
    key: (r) => String(r['orders.status']),
    value: (r) => hundredths(r['orders.count']),
    sql: `SELECT c.country, o.status AS k, CAST(count(*) AS VARCHAR) AS v
      FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY 1, 2`,
  },
  'top-products': {
    key: (r) => String(r['products.name']),
    value: (r) => hundredths(r['line_items.revenue']),
    sql: `SELECT c.country, p.name AS k, CAST(sum(li.quantity * li.price) AS VARCHAR) AS v
      FROM line_items li JOIN orders o ON o.id = li.order_id JOIN customers c ON c.id = o.customer_id
        JOIN products p ON p.id = li.product_id
      GROUP BY 1, 2`,
    top: 10,
  },
  'recent-orders': {
    // An order's figure is its time: the widget lists the latest twenty.
    key: (r) => String(r['orders.id']),
    value: (r) => Date.parse(`${String(r['orders.created_at']).replace(' ', 'T').slice(0, 19)}Z`),
    sql: `SELECT c.country, CAST(o.id AS VARCHAR) AS k,
        CAST(o.created_at AS VARCHAR) AS v
      FROM orders o JOIN customers c ON c.id = o.customer_id`,
    top: 20,
  },
};
const widgetIds = Object.keys(widgets);

/** The first `n` entries by figure, largest first (all of them without `n`). */
function first(figures: Figures, n?: number): Figures {
  const sorted = [...figures.entries()].sort((a, b) => b[1] - a[1]);
  return new Map(n === undefined ? sorted : sorted.slice(0, n));
}

function sum(maps: Figures[]): Figures {
  const out: Figures = new Map();
  for (const m of maps) for (const [k, v] of m) out.set(k, (out.get(k) ?? 0) + v);
  return out;
}

interface Engine {
  name: string;
  deploymentId: number;
  publicId: string;
  /** Runs hand-written SQL on the engine's copy of the sample, outside Tessera. */
  direct(sql: string): Promise<Row[]>;
  close(): Promise<void>;
}

/**
 * The demo model's row-level policies (datasources/sample/model/*.yml) cover every cube whose rows
 * belong to a customer: an embed session whose userAttributes carry a country reads, on every demo
 * widget, exactly that country's orders and line items; the countries add up to what the admin
 * sees, and admins and sessions without a country see everything. On the sample DuckDB and on
 * the same rows copied into PostgreSQL.
 */
describe('demo dashboard under the customer-country policy', () => {
  let server: TestServer;
  const engines: Engine[] = [];
  const pgDatabase = `tessera_rls_${process.pid}_${Date.now()}`;

  beforeAll(async () => {
    server = await startTestServer();
    const file = sampleDatabaseFile(server.config.dataDir);
    await ensureSampleDatabase(file, scale);
    const duck = await DuckDbDriver.open(file, true);
    const duckBoard = await seedDemoDashboard(server.services, {
      tenantId: server.tenantId,
      userId: server.adminUserId,
      deploymentId: server.demoDeploymentId,
    });
    engines.push({
      name: 'duckdb',
      deploymentId: server.demoDeploymentId,
      publicId: duckBoard.publicId,
      direct: (sql) => duck.query(sql, []),
      close: () => duck.close(),
    });
    if (postgresUrl) {
      const admin = new pg.Client({ connectionString: postgresUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${pgDatabase}`);
      await admin.end();
      const url = new URL(postgresUrl);
      url.pathname = `/${pgDatabase}`;
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
            database: pgDatabase,
            user: decodeURIComponent(url.username) || 'postgres',
            ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
          },
        },
      });
      expect(created.statusCode, created.body).toBe(200);
      const deploymentId = created.json().id as number;
      // The demo model, as the demo deployment has it.
      await copyDemoModel(server, deploymentId);
      const board = await seedDemoDashboard(server.services, {
        tenantId: server.tenantId,
        userId: server.adminUserId,
        deploymentId,
      });
      const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
      engines.push({
        name: 'postgres',
        deploymentId,
        publicId: board.publicId,
        direct: async (sql) => (await pool.query(sql)).rows,
        close: () => pool.end(),
      });
    }
    // Global group `admin` exists, as in an account that uses the demo model's admin policy.
    expect((await embedApi(server).send('POST', '/api/v1/groups', { name: 'admin' })).status).toBe(200);
  });
  afterAll(async () => {
    for (const e of engines) await e.close();
    await server?.close();
    if (postgresUrl && engines.some((e) => e.name === 'postgres')) {
      const admin = new pg.Client({ connectionString: postgresUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${pgDatabase} WITH (FORCE)`);
      await admin.end();
    }
  });

  it('runs on DuckDB and, when PostgreSQL is reachable, on PostgreSQL', () => {
    expect(engines.map((e) => e.name)).toEqual(postgresUrl ? ['duckdb', 'postgres'] : ['duckdb']);
  });

  /** An embed token for the engine's deployment, with these userAttributes and global groups. */
  const session = (e: Engine, externalId: string, country: string | null, groups: string[] = []) =>
    embedToken(server, {
      deploymentId: e.deploymentId,
      externalId,
      userAttributeDefinitions: [{ name: 'country', displayName: 'Country' }],
      ...(country === null ? {} : { userAttributes: [{ name: 'country', value: country }] }),
      ...(groups.length > 0 ? { groups } : {}),
    });

  /** Every widget's rows for one token (the admin's API key when none). */
  async function readAll(e: Engine, token = server.adminKey): Promise<Record<string, Row[]>> {
    const answers = await Promise.all(
      widgetIds.map((id) => widgetData(server, e.publicId, id, {}, token, e.deploymentId)),
    );
    return Object.fromEntries(
      answers.map((a, i) => {
        expect(a.status, `${e.name} ${widgetIds[i]}: ${JSON.stringify(a.body)}`).toBe(200);
        return [widgetIds[i], a.body.data as Row[]];
      }),
    );
  }

  const figures = (id: string, rows: Row[]): Figures => {
    const w = widgets[id];
    const out: Figures = new Map(rows.map((r) => [w.key(r), w.value(r)]));
    expect(out.size, `${id}: one row per key`).toBe(rows.length);
    return out;
  };

  /** Hand-written SQL: widget id -> country -> figures, every key (not only the first rows). */
  async function direct(e: Engine) {
    const out: Record<string, Map<string, Figures>> = {};
    for (const id of widgetIds) {
      const byCountry = new Map<string, Figures>();
      for (const r of await e.direct(widgets[id].sql)) {
        const country = String(r.country);
        if (!byCountry.has(country)) byCountry.set(country, new Map());
        const v =
          id === 'recent-orders'
            ? Date.parse(`${String(r.v).replace(' ', 'T').slice(0, 19)}Z`)
            : hundredths(r.v);
        byCountry.get(country)!.set(String(r.k), v);
      }
      out[id] = byCountry;
    }
    return out;
  }

  for (const engineName of ['duckdb', 'postgres']) {
    it.skipIf(engineName === 'postgres' && !postgresUrl)(
      `${engineName}: Alice (DE) and Bob (US) each read their own country on every widget, as hand-written SQL gives it`,
      async () => {
        const e = engines.find((x) => x.name === engineName)!;
        const hand = await direct(e);
        const alice = await readAll(e, await session(e, 'alice', 'DE'));
        const bob = await readAll(e, await session(e, 'bob', 'US'));
        const admin = await readAll(e);
        for (const id of widgetIds) {
          expect(alice[id].length, `${id} for Alice`).toBeGreaterThan(0);
          expect(alice[id], `${id}: Alice and Bob`).not.toEqual(bob[id]);
          expect(alice[id], `${id}: Alice and the admin`).not.toEqual(admin[id]);
          const top = widgets[id].top;
          expect(figures(id, alice[id]), `${id} for Alice`).toEqual(first(hand[id].get('DE')!, top));
          expect(figures(id, bob[id]), `${id} for Bob`).toEqual(first(hand[id].get('US')!, top));
        }
        // Recent orders name the country: only the reader's own.
        expect(new Set(alice['recent-orders'].map((r) => r['customers.country']))).toEqual(new Set(['DE']));
        expect(new Set(bob['recent-orders'].map((r) => r['customers.country']))).toEqual(new Set(['US']));
        // The KPI, spelled out: the sum of the amounts of the orders of German customers.
        const [kpi] = await e.direct(
          `SELECT CAST(sum(o.amount) AS VARCHAR) AS v FROM orders o
            WHERE o.customer_id IN (SELECT id FROM customers WHERE country = 'DE')`,
        );
        expect(hundredths(alice.revenue[0]['orders.total_amount'])).toBe(hundredths(kpi.v));
      },
    );

    it.skipIf(engineName === 'postgres' && !postgresUrl)(
      `${engineName}: every country's figures add up to the admin's; admins and sessions without a country see everything`,
      async () => {
        const e = engines.find((x) => x.name === engineName)!;
        const hand = await direct(e);
        const countries = [...hand.revenue.keys()].sort();
        expect(countries).toHaveLength(10);
        const admin = await readAll(e);
        const perCountry: Record<string, Record<string, Row[]>> = {};
        for (const country of countries)
          perCountry[country] = await readAll(e, await session(e, `in-${country}`, country));
        for (const id of widgetIds) {
          const top = widgets[id].top;
          const mine = countries.map((c) => figures(id, perCountry[c][id]));
          for (const [i, c] of countries.entries())
            expect(mine[i], `${id} for ${c}`).toEqual(first(hand[id].get(c)!, top));
          const adminFigures = figures(id, admin[id]);
          if (top === undefined) {
            expect(sum(mine), `${id}: countries add up to the admin's`).toEqual(first(adminFigures));
          } else if (id === 'recent-orders') {
            // The latest twenty of all orders are the latest twenty among each country's latest.
            expect(first(new Map(mine.flatMap((m) => [...m])), top)).toEqual(first(adminFigures));
          } else {
            // The admin's top products: each figure is the sum of the countries' figures.
            const all = sum([...hand[id].values()]);
            expect(first(adminFigures)).toEqual(first(all, top));
            for (const [k, v] of adminFigures)
              expect(
                countries.reduce((n, c) => n + (hand[id].get(c)!.get(k) ?? 0), 0),
                `${id} ${k}`,
              ).toBe(v);
          }
        }
        // No country, or group admin whatever the country: every row.
        expect(await readAll(e, await session(e, 'nobody', null))).toEqual(admin);
        expect(await readAll(e, await session(e, 'an-admin', 'DE', ['admin']))).toEqual(admin);
      },
    );
  }
});
