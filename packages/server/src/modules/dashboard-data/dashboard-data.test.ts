import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { tokenFor } from '../data/test-support.ts';
import { newDeployment } from '../workspace/test-client.ts';
import { publishBoard, queries, viewer, widgetData } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

type Row = Record<string, string>;

/** Dashboard data: widget rows, dashboard filters, time grains, 403/404. */
describe('dashboard widget data', () => {
  let server: TestServer;
  let board: Awaited<ReturnType<typeof publishBoard>>;
  let publicId: string;
  beforeAll(async () => {
    server = await startTestServer();
    board = await publishBoard(server);
    publicId = board.board.publicId;
  });
  afterAll(() => server?.close());

  const load = async (query: unknown) => {
    const token = await tokenFor(server, server.demoDeploymentId, { securityContext: {} });
    const res = await server.app.inject({
      method: 'POST',
      url: `/data/${server.demoDeploymentId}/cubejs-api/v1/load`,
      headers: { authorization: token },
      payload: { query },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  it('answers the rows of a direct /v1/load of the same query', async () => {
    const res = await widgetData(server, publicId, 'status');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const direct = await load(queries.status);
    expect(res.body.data).toEqual(direct.data);
    expect(res.body.data.length).toBeGreaterThan(1);
    expect(res.body).toMatchObject({
      widgetId: 'status',
      reportId: expect.any(Number),
      versionNumber: 1,
      kind: 'semantic',
      annotation: direct.annotation,
      totalRows: direct.data.length,
      lastRefreshTime: expect.any(String),
    });
    // A viewer that sends no body at all gets the widget as published.
    const bare = await server.app.inject({
      method: 'POST',
      url: `/api/v1/deployments/${server.demoDeploymentId}/dashboards/${publicId}/widgets/status/data`,
      headers: bearer(server.adminKey),
    });
    expect(bare.statusCode, bare.body).toBe(200);
    expect(bare.json().data).toEqual(direct.data);
    const paged = await widgetData(server, publicId, 'status', { limit: 1, offset: 1 });
    expect(paged.body.data).toEqual([direct.data[1]]);
    expect(paged.body.totalRows).toBe(direct.data.length);
    // A viewer that never shows the count (the dashboard page) asks for none: the same rows, no
    // counting statement run beside the query.
    const uncounted = await widgetData(server, publicId, 'status', { total: false });
    expect(uncounted.status, JSON.stringify(uncounted.body)).toBe(200);
    expect(uncounted.body.data).toEqual(direct.data);
    expect(uncounted.body.totalRows).toBeNull();
    expect(uncounted.body.query).toMatchObject({ total: false });
  });

  it('narrows rows with dashboard filters ANDed to the report filters', async () => {
    const all = (await widgetData(server, publicId, 'status')).body.data as Row[];
    const first = all[0];
    const one = await widgetData(server, publicId, 'status', {
      filters: [{ member: 'orders.status', operator: 'equals', value: first['orders.status'] }],
    });
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual([first]);
    expect(one.body.query.filters).toEqual([
      { member: 'orders.status', operator: 'equals', values: [first['orders.status']] },
    ]);
    const others = await widgetData(server, publicId, 'status', {
      filters: [{ member: 'orders.status', operator: 'notEquals', values: [first['orders.status']] }],
    });
    expect(others.body.data).toEqual(all.slice(1));
    // A filter on a joined member narrows too (default operator equals).
    const joined = await widgetData(server, publicId, 'status', {
      filters: [{ member: 'customers.country', value: 'no-such-country' }],
    });
    expect(joined.body.data).toEqual([]);
    const unknown = await widgetData(server, publicId, 'status', {
      filters: [{ member: 'orders.nope', value: 'x' }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('unknown_member');
    expect(unknown.body.detail ?? unknown.body.title).toContain('orders.nope');
    const noValue = await widgetData(server, publicId, 'status', { filters: [{ member: 'orders.status' }] });
    expect(noValue.status).toBe(400);
  });

  it('replaces the granularity of the time dimension with a time-grain override', async () => {
    const yearly = await widgetData(server, publicId, 'yearly');
    expect(yearly.status, JSON.stringify(yearly.body)).toBe(200);
    const monthly = await widgetData(server, publicId, 'yearly', {
      timeGrains: [{ member: 'orders.created_at', grain: 'month' }],
    });
    expect(monthly.status).toBe(200);
    expect(monthly.body.query.timeDimensions[0].granularity).toBe('month');
    expect(monthly.body.data.length).toBeGreaterThan(yearly.body.data.length);
    expect(Object.keys(monthly.body.data[0])).toContain('orders.created_at.month');
    const direct = await load({
      ...queries.yearly,
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
    });
    expect(monthly.body.data).toEqual(direct.data);
    // A grain on a member the widget does not group by leaves it alone.
    const other = await widgetData(server, publicId, 'status', {
      timeGrains: [{ member: 'orders.created_at', grain: 'month' }],
    });
    expect(other.body.data).toEqual((await widgetData(server, publicId, 'status')).body.data);
    const bad = await widgetData(server, publicId, 'yearly', {
      timeGrains: [{ member: 'orders.when', grain: 'day' }],
    });
    expect(bad.status).toBe(400);
  });

  it('applies dashboard filters to a SQL-API widget where the member is in its projection, and says which do not apply', async () => {
    const all = await widgetData(server, publicId, 'sql');
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(all.body.kind).toBe('sql');
    expect(all.body.columns.map((c: { name: string }) => c.name)).toEqual(['status', 'n']);
    expect(all.body.notApplied).toEqual([]);
    const [first, second] = all.body.data as Row[];
    // The dashboard's control names the model member (spec 2.5); the SQL projects it as `status`.
    const one = await widgetData(server, publicId, 'sql', {
      filters: [{ member: 'orders.status', value: first.status }],
    });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body.data).toEqual([first]);
    // The same rows as the semantic widget over the same member under the same filter.
    const semantic = await widgetData(server, publicId, 'status', {
      filters: [{ member: 'orders.status', value: first.status }],
    });
    expect(semantic.body.data.map((r: Row) => r['orders.count'])).toEqual([first.n]);
    // An output column by its own name still filters, and text filters ignore case like Cube's contains.
    const column = await widgetData(server, publicId, 'sql', {
      filters: [{ member: 'status', operator: 'contains', value: second.status.toUpperCase() }],
    });
    expect(column.status, JSON.stringify(column.body)).toBe(200);
    expect(column.body.data).toContainEqual(second);
    expect(column.body.data.every((r: Row) => r.status.includes(second.status))).toBe(true);
    // A member the SQL does not project is not applied, and the answer says so instead of hiding it.
    const elsewhere = await widgetData(server, publicId, 'sql', {
      filters: [
        { member: 'orders.status', value: first.status },
        { member: 'customers.country', value: 'nowhere' },
        { member: 'orders.created_at', operator: 'inDateRange', values: ['2024-01-01', '2024-12-31'] },
      ],
    });
    expect(elsewhere.status, JSON.stringify(elsewhere.body)).toBe(200);
    expect(elsewhere.body.data).toEqual([first]);
    expect(
      elsewhere.body.notApplied.map((n: { kind: string; member: string }) => [n.kind, n.member]),
    ).toEqual([
      ['filter', 'customers.country'],
      ['filter', 'orders.created_at'],
    ]);
    // Neither a member nor a column: still a 400 naming the field.
    const missing = await widgetData(server, publicId, 'sql', {
      filters: [{ member: 'orders.nothing', value: 'x' }],
    });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('unknown_column');
    expect(JSON.stringify(missing.body.errors)).toContain('body/filters/0/member');
  });

  it('takes % and _ in the text filters of a SQL-API widget literally, as Cube does', async () => {
    // Tags with literal % and _ in them: completed is c%mplet_d, processing pr%cessing, returned return_d.
    const sqlText =
      "SELECT REPLACE(REPLACE(status, 'o', '%'), 'ed', '_d') AS tag, n " +
      'FROM (SELECT status, MEASURE(count) AS n FROM orders GROUP BY 1) AS by_status ORDER BY 1';
    const wb = await board.api.workbook(`SQL text filters ${Math.random().toString(36).slice(2, 8)}`);
    const report = await board.api.report({ name: 'tags', sqlQuery: sqlText, workbookId: wb.id });
    const published = await board.api.ok('POST', `/workbooks/${wb.id}/publish`, {
      workbookId: wb.id,
      config: {
        widgets: [{ id: 'tags', position: { x: 0, y: 0, w: 4, h: 4 }, config: { reportId: report.id } }],
      },
    });
    const all = await widgetData(server, published.publicId, 'tags');
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    const tags = (all.body.data as Row[]).map((r) => r.tag);
    expect(tags).toEqual(expect.arrayContaining(['c%mplet_d', 'pr%cessing', 'return_d', 'shipp_d']));

    const literal = {
      contains: (tag: string, v: string) => tag.includes(v),
      startsWith: (tag: string, v: string) => tag.startsWith(v),
      endsWith: (tag: string, v: string) => tag.endsWith(v),
    };
    // What LIKE would match with the value as a pattern: each case below must tell the two apart.
    const asPattern = (operator: keyof typeof literal, v: string) => {
      const body = v
        .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        .replaceAll('%', '.*')
        .replaceAll('_', '.');
      const re = operator === 'contains' ? body : operator === 'startsWith' ? `^${body}` : `${body}$`;
      return (tag: string) => new RegExp(re).test(tag);
    };
    const cases: [keyof typeof literal, string[]][] = [
      ['contains', ['%']],
      ['contains', ['N_']],
      ['startsWith', ['C%']],
      ['endsWith', ['_G', 'N_D']],
    ];
    for (const [operator, values] of cases) {
      const expected = tags.filter((t) => values.some((v) => literal[operator](t, v.toLowerCase())));
      const wildcard = tags.filter((t) => values.some((v) => asPattern(operator, v.toLowerCase())(t)));
      expect(expected.length).toBeGreaterThan(0);
      expect(wildcard, `${operator} ${values}`).not.toEqual(expected);
      const res = await widgetData(server, published.publicId, 'tags', {
        filters: [{ member: 'tag', operator, values }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.notApplied).toEqual([]);
      expect((res.body.data as Row[]).map((r) => r.tag).sort(), `${operator} ${values}`).toEqual(
        expected.sort(),
      );
    }
    // notContains keeps exactly the others.
    const without = await widgetData(server, published.publicId, 'tags', {
      filters: [{ member: 'tag', operator: 'notContains', values: ['%'] }],
    });
    expect((without.body.data as Row[]).map((r) => r.tag).sort()).toEqual(
      tags.filter((t) => !t.includes('%')).sort(),
    );
  });

  it('re-grains a SQL-API widget that truncates the time member, as the semantic widget does', async () => {
    const sqlText =
      "SELECT DATE_TRUNC('year', created_at) AS period, MEASURE(count) AS n FROM orders GROUP BY 1 ORDER BY 1";
    const wb = await board.api.workbook(`SQL grains ${Math.random().toString(36).slice(2, 8)}`);
    const report = await board.api.report({ name: 'by period', sqlQuery: sqlText, workbookId: wb.id });
    const semanticReport = await board.api.report({
      name: 'yearly',
      jsonQuery: JSON.stringify(queries.yearly),
      workbookId: wb.id,
    });
    const published = await board.api.ok('POST', `/workbooks/${wb.id}/publish`, {
      workbookId: wb.id,
      config: {
        widgets: [
          { id: 'periods', position: { x: 0, y: 0, w: 4, h: 4 }, config: { reportId: report.id } },
          { id: 'yearly', position: { x: 4, y: 0, w: 4, h: 4 }, config: { reportId: semanticReport.id } },
        ],
      },
    });
    const yearly = await widgetData(server, published.publicId, 'periods');
    expect(yearly.status, JSON.stringify(yearly.body)).toBe(200);
    const grains = { timeGrains: [{ member: 'orders.created_at', grain: 'month' }] };
    const monthly = await widgetData(server, published.publicId, 'periods', grains);
    expect(monthly.status, JSON.stringify(monthly.body)).toBe(200);
    expect(monthly.body.notApplied).toEqual([]);
    expect(monthly.body.data.length).toBeGreaterThan(yearly.body.data.length);
    const semantic = await widgetData(server, published.publicId, 'yearly', grains);
    expect(monthly.body.data.map((r: Row) => [r.period.slice(0, 7), r.n])).toEqual(
      semantic.body.data.map((r: Row) => [r['orders.created_at.month'].slice(0, 7), r['orders.count']]),
    );
    // A grain on a member the SQL does not group by leaves it alone, as on semantic widgets.
    const other = await widgetData(server, publicId, 'sql', grains);
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    expect(other.body.data).toEqual((await widgetData(server, publicId, 'sql')).body.data);
    const unknown = await widgetData(server, publicId, 'sql', {
      timeGrains: [{ member: 'orders.when', grain: 'day' }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('unknown_member');
  });

  it('answers 403 without view access and 404 for unknown or foreign dashboards, widgets and versions', async () => {
    const outsider = await viewer(server);
    expect((await widgetData(server, publicId, 'status', {}, outsider.key)).status).toBe(403);
    const insider = await viewer(server, { workbookId: board.workbook.id });
    expect((await widgetData(server, publicId, 'status', {}, insider.key)).status).toBe(200);
    expect((await widgetData(server, 'nope', 'status')).status).toBe(404);
    expect((await widgetData(server, publicId, 'nope')).status).toBe(404);
    expect((await widgetData(server, publicId, 'text')).status).toBe(404);
    expect((await widgetData(server, publicId, 'status', { versionNumber: 99 })).status).toBe(404);
    const other = await newDeployment(server, 'other');
    expect((await widgetData(server, publicId, 'status', {}, server.adminKey, other)).status).toBe(404);
    expect((await widgetData(server, publicId, 'status', {}, server.adminKey, 999_999)).status).toBe(404);
  });

  it('reads an older version by number after a new publish', async () => {
    const wb = board.workbook.id;
    const v1 = board.board.config;
    await board.api.ok('POST', `/workbooks/${wb}/publish`, {
      workbookId: wb,
      config: { ...v1, widgets: v1.widgets.filter((w: { id: string }) => w.id !== 'status') },
    });
    expect((await widgetData(server, publicId, 'status')).status).toBe(404);
    const old = await widgetData(server, publicId, 'status', { versionNumber: 1 });
    expect(old.status).toBe(200);
    expect(old.body.versionNumber).toBe(1);
  });
});
