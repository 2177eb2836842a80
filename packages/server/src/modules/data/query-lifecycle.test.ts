import path from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { listen, tokenFor } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';
const postgresUrl = inject('postgresUrl');
const MARIADB = { host: '127.0.0.1', port: 3306, user: 'root' };
const tag = process.pid;

async function mariadbUp(): Promise<boolean> {
  try {
    await (await mysql.createConnection({ ...MARIADB, connectTimeout: 2000 })).end();
    return true;
  } catch {
    return false;
  }
}
const mariadb = await mariadbUp();

/** Polls `check` until it holds (its value), or fails after `ms`. */
async function until<T>(check: () => Promise<T | false>, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== false) return value;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The query lifecycle on the engines (issue 24 item 3), over real HTTP on loopback against the real
 * PostgreSQL, MariaDB and DuckDB: a client that closes its connection before the answer has its
 * statement stopped on the engine, unless another request still waits for the same execution; the
 * engine's errors are a 400 when the query is at fault and a 503 in words for why when the engine
 * is, naming no host or user; statements carry `/* tessera deployment=N query=<id> *\/` and
 * PostgreSQL connections `application_name` `tessera deployment N`.
 */
describe('query lifecycle on the engines', () => {
  let server: TestServer;
  let baseUrl: string;
  const tokens = new Map<number, string>();

  beforeAll(async () => {
    server = await startTestServer();
    baseUrl = await listen(server);
  });
  afterAll(() => server?.close());
  afterEach(() => {
    Object.assign(server.services.data.settings, { continueWaitMs: 5_000, queryTimeoutMs: 120_000 });
  });

  /** A deployment on `dataSource` whose model is `model` alone, and a data-API token for it. */
  const deploy = async (name: string, dataSource: Record<string, unknown>, model: string) => {
    const created = await server.app.inject({
      method: 'POST',
      url: '/api/v1/deployments',
      headers: bearer(server.adminKey),
      payload: { name, dataSource },
    });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json().id as number;
    await server.store.db
      .insertInto('model_files')
      .values({ deployment_id: id, branch: 'main', path: 'model/lifecycle.yml', content: model })
      .execute();
    tokens.set(id, await tokenFor(server, id, {}));
    return id;
  };

  /** POST /v1/load over HTTP; aborting `signal` closes the connection before the answer. */
  const load = (deploymentId: number, query: unknown, signal?: AbortSignal) =>
    fetch(`${baseUrl}/data/${deploymentId}/cubejs-api/v1/load`, {
      method: 'POST',
      headers: { authorization: tokens.get(deploymentId)!, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
      signal,
    });

  /** A request whose client can go away: `leave()` closes its connection. */
  const request = (deploymentId: number, query: unknown) => {
    const controller = new AbortController();
    const response = load(deploymentId, query, controller.signal).catch((error: Error) => error);
    return { leave: () => controller.abort(), response };
  };

  describe.skipIf(!postgresUrl)('PostgreSQL', () => {
    let admin: pg.Client;
    let url: URL;
    let deploymentId: number;
    const table = `lc_locked_${tag}`;
    const lockRole = `tessera_lc_lock_${tag}`;
    const fullRole = `tessera_lc_full_${tag}`;
    // Deployment ids start at 1 in every test store, and other files' stores reach this server at
    // the same time: the connections are told apart by this process's role, not by the id alone.
    const runRole = `tessera_lc_run_${tag}`;
    const model = `cubes:
  - name: sleepy
    sql: SELECT 1 AS id, pg_sleep(30) AS s
    measures:
      - name: count
        type: count
  - name: faults
    sql: SELECT 1 AS id, 'abc'::text AS word
    measures:
      - name: unknown_column
        type: sum
        sql: no_such_column
      - name: divided_by_zero
        type: sum
        sql: 1 / (id - 1)
      - name: mistyped
        type: sum
        sql: CAST(word AS integer)
  - name: napping
    sql: SELECT 1 AS id, pg_sleep(0.7) AS s
    measures:
      - name: count
        type: count
  - name: locked
    sql_table: public.${table}
    measures:
      - name: count
        type: count
`;
    const source = (user: string) => ({
      type: 'postgres',
      host: url.hostname,
      port: Number(url.port || 5432),
      database: url.pathname.slice(1),
      user,
    });

    /** The statements of `deployment` running now, as pg_stat_activity shows them. */
    const running = async (deployment: number) => {
      const { rows } = await admin.query<{ pid: number; query: string; application_name: string }>(
        "SELECT pid, query, application_name FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND usename = $2",
        [`/* tessera deployment=${deployment} query=%`, runRole],
      );
      return rows;
    };

    beforeAll(async () => {
      url = new URL(postgresUrl!);
      admin = new pg.Client({ connectionString: postgresUrl! });
      await admin.connect();
      await admin.query(`CREATE TABLE ${table} (id int)`);
      await admin.query(`CREATE ROLE ${lockRole} LOGIN`);
      await admin.query(`ALTER ROLE ${lockRole} SET lock_timeout = '300ms'`);
      await admin.query(`GRANT SELECT ON ${table} TO ${lockRole}`);
      await admin.query(`CREATE ROLE ${fullRole} LOGIN CONNECTION LIMIT 0`);
      await admin.query(`CREATE ROLE ${runRole} LOGIN`);
      deploymentId = await deploy('pg lifecycle', source(runRole), model);
    });
    afterAll(async () => {
      await admin.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
      for (const role of [lockRole, fullRole, runRole])
        await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
      await admin.end();
    });

    it('cancels the statement when its client goes away, and names Tessera and the deployment', async () => {
      server.services.data.settings.continueWaitMs = 30_000;
      const r = request(deploymentId, { measures: ['sleepy.count'], limit: 11 });
      const [seen] = await until(
        async () => {
          const rows = await running(deploymentId);
          return rows.length > 0 && rows;
        },
        5_000,
        'the statement on the engine',
      );
      expect(seen!.application_name).toBe(`tessera deployment ${deploymentId}`);
      expect(seen!.query).toMatch(
        new RegExp(`^/\\* tessera deployment=${deploymentId} query=[0-9a-f]{12} \\*/ SELECT`),
      );
      expect(seen!.query).toMatch(/pg_sleep\(30\)/);
      const left = Date.now();
      r.leave();
      await until(async () => (await running(deploymentId)).length === 0, 2_000, 'the statement cancelled');
      expect(Date.now() - left).toBeLessThan(2_000);
      expect(await r.response).toBeInstanceOf(Error);
    });

    it('keeps a shared statement running while a second request waits for it, and cancels it when that one leaves too', async () => {
      server.services.data.settings.continueWaitMs = 30_000;
      const query = { measures: ['sleepy.count'], limit: 12 };
      const first = request(deploymentId, query);
      await until(async () => (await running(deploymentId)).length === 1, 5_000, 'the first request running');
      const second = request(deploymentId, query);
      // the second request joins the same execution: still one statement on the engine
      await new Promise((r) => setTimeout(r, 300));
      expect((await running(deploymentId)).length).toBe(1);
      first.leave();
      await new Promise((r) => setTimeout(r, 1_500));
      const still = await running(deploymentId);
      expect(still.length).toBe(1);
      const left = Date.now();
      second.leave();
      await until(
        async () => (await running(deploymentId)).length === 0,
        2_000,
        'the shared statement cancelled',
      );
      expect(Date.now() - left).toBeLessThan(2_000);
    });

    it('opens at most maxConnections connections for a deployment: more queries wait for one', async () => {
      const bounded = await deploy('pg bounded', { ...source(runRole), maxConnections: 2 }, model);
      const started = Date.now();
      let settled = false;
      const answers = Promise.all(
        [1, 2, 3, 4, 5].map((n) => load(bounded, { measures: ['napping.count'], limit: 30 + n })),
      ).finally(() => {
        settled = true;
      });
      let most = 0;
      while (!settled) {
        const { rows } = await admin.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND usename = $2',
          [`tessera deployment ${bounded}`, runRole],
        );
        most = Math.max(most, rows[0]!.n);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await answers).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      expect(most).toBe(2);
      // five statements of 0.7 s on two connections: three rounds
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    });

    it.each([
      ['faults.unknown_column', /^Query failed: column "?[a-z_."]*no_such_column"? does not exist/],
      ['faults.divided_by_zero', /^Query failed: division by zero$/],
      ['faults.mistyped', /^Query failed: invalid input syntax for type integer: "abc"$/],
    ])('answers the engine refusing %s with a 400 in its words', async (measure, words) => {
      const res = await load(deploymentId, { measures: [measure] });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatch(words);
    });

    it('answers a lock timeout with a 503 that says to try again, naming no host or role', async () => {
      const locked = await deploy('pg locked', source(lockRole), model);
      await admin.query('BEGIN');
      try {
        await admin.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
        const res = await load(locked, { measures: ['locked.count'] });
        expect(res.status).toBe(503);
        const body = await res.text();
        expect(JSON.parse(body).error).toMatch(/lock another transaction holds .*try again/);
        for (const internal of [url.hostname, lockRole, table]) expect(body).not.toContain(internal);
      } finally {
        await admin.query('ROLLBACK');
      }
      // the lock gone, the same query runs
      const res = await load(locked, { measures: ['locked.count'] });
      expect(res.status).toBe(200);
    });

    it('answers an engine out of connections with a 503 that says so', async () => {
      const full = await deploy('pg full', source(fullRole), model);
      const res = await load(full, { measures: ['faults.divided_by_zero'] });
      expect(res.status).toBe(503);
      const body = await res.text();
      expect(JSON.parse(body).error).toMatch(
        /out of connections or resources right now; try again in a moment/,
      );
      for (const internal of [url.hostname, fullRole]) expect(body).not.toContain(internal);
    });
  });

  describe.skipIf(!mariadb)('MariaDB', () => {
    let admin: mysql.Connection;
    let deploymentId: number;
    const slowUser = `tessera_lc_slow_${tag}`;
    const busyUser = `tessera_lc_busy_${tag}`;
    // as on PostgreSQL: this process's statements are told apart by user, the ids repeat across stores
    const runUser = `tessera_lc_run_${tag}`;
    const users = [slowUser, busyUser, runUser].flatMap((u) => [`'${u}'@'%'`, `'${u}'@'localhost'`]);
    const model = `cubes:
  - name: sleepy
    sql: SELECT SLEEP(30) AS s, 1 AS id
    measures:
      - name: count
        type: count
  - name: faults
    sql: SELECT 1 AS id
    measures:
      - name: two_rows
        type: sum
        sql: (SELECT 1 UNION ALL SELECT 2)
`;
    const source = (user: string) => ({
      type: 'mysql',
      host: MARIADB.host,
      port: MARIADB.port,
      database: 'test',
      user,
    });
    const running = async (deployment: number) => {
      const [rows] = (await admin.query(
        "SELECT ID, INFO FROM information_schema.PROCESSLIST WHERE INFO LIKE '/* tessera deployment=%' AND USER = ?",
        [runUser],
      )) as unknown as [Array<{ ID: number; INFO: string }>];
      return rows.filter((r) => r.INFO.startsWith(`/* tessera deployment=${deployment} query=`));
    };

    beforeAll(async () => {
      admin = await mysql.createConnection(MARIADB);
      for (const host of ['%', 'localhost']) {
        await admin.query(`CREATE USER IF NOT EXISTS '${slowUser}'@'${host}' WITH MAX_STATEMENT_TIME 0.3`);
        await admin.query(`CREATE USER IF NOT EXISTS '${busyUser}'@'${host}' WITH MAX_USER_CONNECTIONS 1`);
        await admin.query(`CREATE USER IF NOT EXISTS '${runUser}'@'${host}'`);
        for (const u of [slowUser, busyUser, runUser])
          await admin.query(`GRANT SELECT ON test.* TO '${u}'@'${host}'`);
      }
      deploymentId = await deploy('maria lifecycle', source(runUser), model);
    });
    afterAll(async () => {
      for (const u of users) await admin?.query(`DROP USER IF EXISTS ${u}`).catch(() => undefined);
      await admin?.end();
    });

    it('kills the statement (KILL QUERY) when its client goes away, its comment naming Tessera and the deployment', async () => {
      server.services.data.settings.continueWaitMs = 30_000;
      const r = request(deploymentId, { measures: ['sleepy.count'], limit: 21 });
      const [seen] = await until(
        async () => {
          const rows = await running(deploymentId);
          return rows.length > 0 && rows;
        },
        5_000,
        'the statement on the engine',
      );
      expect(seen!.INFO).toMatch(
        new RegExp(`^/\\* tessera deployment=${deploymentId} query=[0-9a-f]{12} \\*/ SELECT`),
      );
      const left = Date.now();
      r.leave();
      await until(async () => (await running(deploymentId)).length === 0, 2_000, 'the statement killed');
      expect(Date.now() - left).toBeLessThan(2_000);
    });

    it('answers a subquery of two rows with a 400 in the engine words', async () => {
      const res = await load(deploymentId, { measures: ['faults.two_rows'] });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatch(/^Query failed: Subquery returns more than 1 row/);
    });

    it("answers the engine's own statement timeout and its connection limit with 503s in words, naming no user", async () => {
      const slow = await deploy('maria slow', source(slowUser), model);
      const timedOut = await load(slow, { measures: ['sleepy.count'] });
      expect(timedOut.status).toBe(503);
      const body = await timedOut.text();
      expect(JSON.parse(body).error).toMatch(
        /cancelled the query itself \(its statement timeout or an operator\)/,
      );
      expect(body).not.toContain(slowUser);

      const held = await mysql.createConnection({ ...MARIADB, user: busyUser });
      try {
        const busy = await deploy('maria busy', source(busyUser), model);
        const res = await load(busy, { measures: ['faults.two_rows'] });
        expect(res.status).toBe(503);
        const text = await res.text();
        expect(JSON.parse(text).error).toMatch(/out of connections or resources right now/);
        expect(text).not.toContain(busyUser);
      } finally {
        await held.end();
      }
    });
  });

  describe('DuckDB', () => {
    const model = `cubes:
  - name: endless
    sql: "SELECT hash(a.range * 7919 + b.range) % 1000 AS v, a.range::varchar AS word FROM range(0, 1000000) a, range(0, 1000000) b"
    measures:
      - name: total
        type: sum
        sql: v
      - name: unknown_column
        type: sum
        sql: no_such_column
      - name: mistyped
        type: sum
        sql: CAST('abc' AS INTEGER)
`;
    let deploymentId: number;
    beforeAll(async () => {
      deploymentId = await deploy('duck lifecycle', { type: 'duckdb', path: ':sample:' }, model);
    });

    /** This process's CPU use (DuckDB runs in it) over `ms`, in cores. */
    const cores = async (ms: number) => {
      const before = process.cpuUsage();
      await new Promise((r) => setTimeout(r, ms));
      const used = process.cpuUsage(before);
      return (used.user + used.system) / 1000 / ms;
    };

    it('interrupts the statement when its client goes away: the engine stops using the CPU', async () => {
      server.services.data.settings.continueWaitMs = 30_000;
      const r = request(deploymentId, { measures: ['endless.total'] });
      // running: DuckDB's threads keep the process busy (on a loaded machine, with what share of
      // the cores it gets: stopping is measured against that, not against a fixed number)
      await until(async () => (await cores(300)) > 0.15 && true, 10_000, 'the cross join running');
      const busy = await cores(1_000);
      r.leave();
      expect(await r.response).toBeInstanceOf(Error);
      await new Promise((r) => setTimeout(r, 700));
      expect(await cores(1_000)).toBeLessThan(Math.min(busy / 4, 0.25));
    });

    it.each([
      ['endless.unknown_column', /^Query failed: Binder Error: .*no_such_column/],
      ['endless.mistyped', /^Query failed: Conversion Error: Could not convert string 'abc' to INT32/],
    ])('answers the engine refusing %s with a 400 in its words', async (measure, words) => {
      const res = await load(deploymentId, { measures: [measure] });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatch(words);
    });
  });
});

if (!postgresUrl || !mariadb)
  describe.skip(`an engine unreachable: its lifecycle tests skipped (${path.basename(import.meta.filename)})`, () => {});
