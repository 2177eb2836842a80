import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { cubesql } from './cubesql/test-support.ts';
import { tokenFor } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

/**
 * Issue 15: "A construct that is not supported is a model error with file, line and member, and
 * only that cube becomes unavailable: the rest of the deployment keeps serving." A branch with a
 * good cube, a cube with an unsupported construct and a bad member reference, a file that is not
 * YAML, and views over both: the good cube answers, the others are a 400 that says why.
 */
const files = [
  {
    path: 'model/good.yml',
    content: `cubes:
  - name: shop_orders
    sql_table: orders
    joins:
      - name: broken_orders
        relationship: one_to_one
        sql: "{CUBE}.id = {broken_orders.id}"
    measures:
      - name: count
        type: count
      - name: total_amount
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
`,
  },
  {
    path: 'model/broken.yml',
    content: `cubes:
  - name: broken_orders
    sql_table: orders
    measures:
      - name: count
        type: count
      - name: weekly
        type: number
        sql: "{count}"
        multi_stage: true
        rolling_window:
          trailing: 7 day
      - name: bad_ref
        type: number
        sql: "{shop_orders.no_such_member}"
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
`,
  },
  {
    path: 'model/views.yml',
    content: `views:
  - name: good_view
    cubes:
      - join_path: shop_orders
        includes: [count, status]
  - name: broken_view
    cubes:
      - join_path: broken_orders
        includes: [count]
`,
  },
  { path: 'model/syntax.yml', content: 'cubes:\n  - name: lost\n    measures: [ unclosed\n' },
];

describe('a deployment with a broken cube keeps serving the others', () => {
  let server: TestServer;
  let branchToken: string;
  let mainToken: string;
  const admin = { serviceCloud: { groups: ['admin'] } };
  const base = () => `/data/${server.demoDeploymentId}/cubejs-api/v1`;
  const load = (query: unknown, token = branchToken) =>
    server.app.inject({
      method: 'POST',
      url: `${base()}/load`,
      headers: { authorization: token },
      payload: { query },
    });

  beforeAll(async () => {
    server = await startTestServer();
    const put = await server.app.inject({
      method: 'PUT',
      url: `/build/api/v1/deployments/${server.demoDeploymentId}/data-model/files`,
      headers: bearer(server.adminKey),
      payload: { branchName: 'isolation', files },
    });
    expect(put.statusCode, put.body).toBe(200);
    branchToken = await tokenFor(server, server.demoDeploymentId, {
      securityContext: admin,
      branch: 'isolation',
    });
    mainToken = await tokenFor(server, server.demoDeploymentId, { securityContext: admin });
  });
  afterAll(() => server?.close());

  it('answers /v1/load and /v1/cubesql on the good cube with the rows of its table', async () => {
    const query = {
      measures: ['shop_orders.count', 'shop_orders.total_amount'],
      dimensions: ['shop_orders.status'],
      order: { 'shop_orders.status': 'asc' },
    };
    const res = await load(query);
    expect(res.statusCode, res.body).toBe(200);
    const rows = res.json().data as Record<string, string>[];
    // The same table through the sample's own `orders` cube on main: the same figures.
    const reference = await load(
      {
        measures: ['orders.count', 'orders.total_amount'],
        dimensions: ['orders.status'],
        order: { 'orders.status': 'asc' },
      },
      mainToken,
    );
    expect(reference.statusCode, reference.body).toBe(200);
    const expected = (reference.json().data as Record<string, string>[]).map((r) => [
      r['orders.status'],
      Number(r['orders.count']),
      Number(Number(r['orders.total_amount']).toFixed(2)),
    ]);
    expect(expected.length).toBeGreaterThan(1);
    expect(
      rows.map((r) => [
        r['shop_orders.status'],
        Number(r['shop_orders.count']),
        Number(Number(r['shop_orders.total_amount']).toFixed(2)),
      ]),
    ).toEqual(expected);

    const sql = await cubesql(
      server,
      server.demoDeploymentId,
      branchToken,
      'SELECT status, MEASURE(count) FROM shop_orders GROUP BY 1 ORDER BY 1',
    );
    expect(sql.status, sql.error ?? '').toBe(200);
    expect(sql.rows.map(([s, n]) => [s, Number(n)])).toEqual(expected.map(([s, n]) => [s, n]));

    // A view over the good cube serves too.
    const view = await load({ measures: ['good_view.count'] });
    expect(view.statusCode, view.body).toBe(200);
    expect(Number(view.json().data[0]['good_view.count'])).toBe(
      expected.reduce((a, r) => a + (r[1] as number), 0),
    );
  });

  it('lists only the healthy cubes and views in /v1/meta', async () => {
    const res = await server.app.inject({ url: `${base()}/meta`, headers: { authorization: branchToken } });
    expect(res.statusCode, res.body).toBe(200);
    const names = (res.json().cubes as { name: string }[]).map((c) => c.name).sort();
    expect(names).toEqual(['good_view', 'shop_orders']);
    // The join to the broken cube is dropped with it.
    expect(res.body).not.toContain('broken_orders');
  });

  it('refuses a query on the broken cube with 400 naming file, line, member and message', async () => {
    const res = await load({ measures: ['broken_orders.count'] });
    expect(res.statusCode, res.body).toBe(400);
    const { error } = res.json();
    expect(error).toContain("Cube 'broken_orders' is unavailable");
    expect(error).toContain(
      'model/broken.yml:11 (broken_orders.weekly): rolling_window on a multi-stage measure of type number is not supported',
    );
    expect(error).toMatch(/model\/broken\.yml:\d+ \(broken_orders\.bad_ref\): .*no_such_member/);

    const sql = await cubesql(
      server,
      server.demoDeploymentId,
      branchToken,
      'SELECT MEASURE(count) FROM broken_orders',
    );
    expect(sql.status).toBe(400);
    expect(sql.error).toContain('model/broken.yml:11 (broken_orders.weekly)');

    const compiled = await server.app.inject({
      url: `${base()}/sql?query=${encodeURIComponent(JSON.stringify({ measures: ['broken_orders.count'] }))}`,
      headers: { authorization: branchToken },
    });
    expect(compiled.statusCode, compiled.body).toBe(400);
    expect(compiled.json().error).toContain("Cube 'broken_orders' is unavailable");
  });

  it('refuses the view over the broken cube, and a cube of a file that is not YAML, with the reason', async () => {
    const view = await load({ measures: ['broken_view.count'] });
    expect(view.statusCode, view.body).toBe(400);
    expect(view.json().error).toContain("View 'broken_view' is unavailable: it depends on 'broken_orders'");
    expect(view.json().error).toContain('model/broken.yml:11 (broken_orders.weekly)');

    const lost = await load({ measures: ['lost.count'] });
    expect(lost.statusCode, lost.body).toBe(400);
    expect(lost.json().error).toMatch(/Cube 'lost' is unavailable[\s\S]*model\/syntax\.yml:\d+: YAML: /);
    const lostSql = await cubesql(server, server.demoDeploymentId, branchToken, 'SELECT * FROM lost');
    expect(lostSql.status).toBe(400);
    expect(lostSql.error).toContain('model/syntax.yml');
  });

  it('answers malformed queries with a 4xx, never a 5xx', async () => {
    const loads: unknown[] = [
      'not json',
      { measures: [123] },
      { measures: ['broken_orders'] },
      { measures: ['shop_orders.count'], dimensions: ['broken_orders.id'] },
      {
        measures: ['shop_orders.count'],
        filters: [{ member: 'broken_orders.id', operator: 'equals', values: ['1'] }],
      },
      { measures: ['shop_orders.nope'] },
      { dimensions: ['shop_orders.status'], order: [['broken_orders.count', 'desc']] },
    ];
    for (const query of loads) {
      const res = await load(query);
      expect(res.statusCode, `${JSON.stringify(query)} -> ${res.body}`).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, `${JSON.stringify(query)} -> ${res.body}`).toBeLessThan(500);
      expect(typeof res.json().error).toBe('string');
    }
    for (const sql of [
      'SELEC 1',
      'SELECT MEASURE(count) FROM broken_orders WHERE',
      'SELECT s.status FROM shop_orders s JOIN broken_orders b ON s.id = b.id',
      'SELECT MEASURE(count) FROM broken_view',
      '',
    ]) {
      const res = await cubesql(server, server.demoDeploymentId, branchToken, sql);
      expect(res.status, `${sql} -> ${res.error}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${sql} -> ${res.error}`).toBeLessThan(500);
    }
  });

  it('still reports every error to the model author, and a model with no healthy cube stays a compile error', async () => {
    const validated = await server.app.inject({
      url: `/build/api/v1/deployments/${server.demoDeploymentId}/data-model/validate?branchName=isolation`,
      headers: bearer(server.adminKey),
    });
    const result = validated.json();
    expect(result.valid).toBe(false);
    const where = result.errors.map(
      (e: { fileName: string; line: number | null }) => `${e.fileName}:${e.line}`,
    );
    expect(where).toContain('model/broken.yml:11');
    expect(where.some((w: string) => w.startsWith('model/syntax.yml:'))).toBe(true);

    const put = await server.app.inject({
      method: 'PUT',
      url: `/build/api/v1/deployments/${server.demoDeploymentId}/data-model/files`,
      headers: bearer(server.adminKey),
      payload: { branchName: 'all-broken', files: files.filter((f) => f.path !== 'model/good.yml') },
    });
    expect(put.statusCode, put.body).toBe(200);
    const token = await tokenFor(server, server.demoDeploymentId, {
      securityContext: admin,
      branch: 'all-broken',
    });
    const meta = await server.app.inject({ url: `${base()}/meta`, headers: { authorization: token } });
    expect(meta.statusCode, meta.body).toBe(400);
    expect(meta.json().error).toMatch(/^Compile errors:\n/);
    expect(meta.json().error).toContain('model/broken.yml:11');
  });
});
