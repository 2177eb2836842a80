import { bearer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { contentClient } from '../workspace/test-client.ts';

/** Shared by the dashboard-data tests: a published dashboard on the demo deployment and its viewers. */
export const queries = {
  status: { measures: ['orders.count'], dimensions: ['orders.status'], order: { 'orders.status': 'asc' } },
  yearly: {
    measures: ['orders.count'],
    timeDimensions: [{ dimension: 'orders.created_at', granularity: 'year' }],
    order: { 'orders.created_at': 'asc' },
  },
  country: {
    measures: ['customers.count'],
    dimensions: ['customers.country'],
    order: { 'customers.country': 'asc' },
  },
  email: { dimensions: ['customers.email'], order: { 'customers.email': 'asc' }, limit: 5 },
};
export const statusSql = 'SELECT status, MEASURE(count) AS n FROM orders GROUP BY 1 ORDER BY 1';

const widget = (id: string, reportId?: number) => ({
  id,
  position: { x: 0, y: 0, w: 4, h: 4 },
  config: reportId === undefined ? { text: 'hello' } : { reportId },
});

/** Publishes a workbook on the demo deployment with one widget per query, a SQL widget and a text widget. */
export async function publishBoard(server: TestServer) {
  const api = contentClient(server, server.demoDeploymentId);
  const wb = await api.workbook(`Board ${Math.random().toString(36).slice(2, 8)}`);
  const widgets = [];
  for (const [name, query] of Object.entries(queries)) {
    const r = await api.report({ name, jsonQuery: JSON.stringify(query), workbookId: wb.id });
    widgets.push(widget(name, r.id));
  }
  const sql = await api.report({ name: 'sql', sqlQuery: statusSql, workbookId: wb.id });
  widgets.push(widget('sql', sql.id), widget('text'));
  const board = await api.ok('POST', `/workbooks/${wb.id}/publish`, {
    workbookId: wb.id,
    config: { widgets },
  });
  return { api, workbook: wb, board };
}

/** A viewer-role user, optionally in global groups, with view access to the workbook when `workbookId`. */
export async function viewer(server: TestServer, options: { workbookId?: number; groups?: string[] } = {}) {
  const v = await userWithKey(server, 'viewer');
  const api = contentClient(server, server.demoDeploymentId);
  if (options.workbookId !== undefined)
    await api.grant({ type: 'WORKBOOK', id: options.workbookId, userId: v.user.id, level: 'view' });
  for (const name of options.groups ?? []) {
    const list = await api.ok('GET', '/api/v1/groups?first=100');
    let group = list.items.find((g: { name: string }) => g.name === name);
    group ??= await api.ok('POST', '/api/v1/groups', { name });
    await api.ok('POST', `/api/v1/groups/${group.id}/members`, { userId: v.user.id });
  }
  return v;
}

/** Calls the widget-data endpoint. */
export async function widgetData(
  server: TestServer,
  publicId: string,
  widgetId: string,
  body: Record<string, unknown> = {},
  key = server.adminKey,
  deploymentId = server.demoDeploymentId,
) {
  const res = await server.app.inject({
    method: 'POST',
    url: `/api/v1/deployments/${deploymentId}/dashboards/${publicId}/widgets/${widgetId}/data`,
    headers: bearer(key),
    payload: body,
  });
  return { status: res.statusCode, body: res.json() };
}
