import { AsyncLocalStorage } from 'node:async_hooks';
import type { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { queries } from '../dashboard-data/test-support.ts';
import { contentClient } from '../workspace/test-client.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

/**
 * A render opens its dashboard once (DashboardDataService.openDashboard): the access check, the
 * version, workbook, user, groups and deployment reads and the snapshots are not repeated per
 * widget, so the metadata-store reads of a render do not grow with its number of widgets (the
 * widgets' own queries go to the deployment's engine, not to the store). A revoked grant is still
 * seen on the next render: nothing is kept between renders.
 */
describe('store reads of a dashboard render', () => {
  let server: TestServer;
  const counting = new AsyncLocalStorage<{ sql: string[] }>();

  beforeAll(async () => {
    server = await startTestServer();
    // Counts every store query issued from inside a measured render (and only those: another
    // task's queries run outside its async context), at the one executor the services share.
    const executor = server.store.db.getExecutor();
    const execute = executor.executeQuery.bind(executor);
    executor.executeQuery = ((compiled: CompiledQuery) => {
      counting.getStore()?.sql.push(compiled.sql);
      return execute(compiled);
    }) as typeof executor.executeQuery;
  });
  afterAll(() => server?.close());

  /** A dashboard with `n` report widgets (the status query each), published by the admin. */
  async function board(n: number) {
    const api = contentClient(server, server.demoDeploymentId);
    const wb = await api.workbook(`Reads ${n} ${Math.random().toString(36).slice(2, 8)}`);
    const widgets = [];
    for (let i = 0; i < n; i++) {
      const r = await api.report({
        name: `w${i}`,
        jsonQuery: JSON.stringify(queries.status),
        workbookId: wb.id,
      });
      widgets.push({ id: `w${i}`, position: { x: 0, y: i * 4, w: 4, h: 4 }, config: { reportId: r.id } });
    }
    const published = await api.ok('POST', `/workbooks/${wb.id}/publish`, {
      workbookId: wb.id,
      config: { widgets },
    });
    return { api, workbookId: wb.id as number, publicId: published.publicId as string };
  }

  const render = (publicId: string, userId = server.adminUserId) =>
    server.services.notifications.renderer.render({
      tenantId: server.tenantId,
      deploymentId: server.demoDeploymentId,
      dashboardPublicId: publicId,
      subject: { kind: 'user', userId },
      filters: null,
      timeGrains: null,
      format: 'png',
    });

  async function storeReads(publicId: string, userId?: number) {
    const seen = { sql: [] as string[] };
    const file = await counting.run(seen, () => render(publicId, userId));
    return { file, sql: seen.sql };
  }

  it('makes as many store reads for eight widgets as for one', async () => {
    const one = await board(1);
    const eight = await board(8);
    // One unmeasured render each, so that caches filled on first use (meta, query results) are
    // warm for both alike.
    await render(one.publicId);
    await render(eight.publicId);
    const small = await storeReads(one.publicId);
    const large = await storeReads(eight.publicId);
    expect(small.file.failedWidgets).toEqual([]);
    expect(large.file.failedWidgets).toEqual([]);
    expect(small.sql.length).toBeGreaterThan(0);
    expect(large.sql.length, large.sql.join('\n')).toBe(small.sql.length);
    // The snapshots are read in one query, not one per widget.
    expect(large.sql.filter((s) => s.includes('"report_snapshots"'))).toHaveLength(1);
  });

  it('sees a grant revoked between two renders', async () => {
    const b = await board(2);
    const v = await userWithKey(server, 'viewer');
    const grant = await b.api.grant({ type: 'WORKBOOK', id: b.workbookId, userId: v.user.id, level: 'view' });
    const before = await render(b.publicId, v.user.id);
    expect(before.failedWidgets).toEqual([]);
    await b.api.ok('DELETE', `/permissions/${grant.id}`);
    const after = await render(b.publicId, v.user.id);
    expect(after.failedWidgets.map((f) => f.id).sort()).toEqual(['w0', 'w1']);
  });
});
