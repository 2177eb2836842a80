import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { contentClient, newDeployment } from '../workspace/test-client.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read as loosely typed JSON in assertions.
type JsonBody = any;
type Files = Record<string, string>;

/**
 * Content kept as code over HTTP (issue 25 item 6): export, plan and apply on a real store,
 * through a server listening on loopback, as a CI pipeline would call it.
 */
describe('content as code: export, plan and apply over HTTP', () => {
  let server: TestServer;
  let base: string;
  let source: number;
  let reportPublicId: string;

  const call = async (
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: JsonBody }> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...bearer(server.adminKey),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const exportOf = async (deploymentId: number): Promise<Files> => {
    const res = await call('GET', `/api/v1/deployments/${deploymentId}/content`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.files;
  };
  const plan = (deploymentId: number, files: Files) =>
    call('POST', `/api/v1/deployments/${deploymentId}/content/plan`, { files });
  const apply = (deploymentId: number, files: Files) =>
    call('POST', `/api/v1/deployments/${deploymentId}/content/apply`, { files });
  const auditCount = async () =>
    Number(
      (
        await server.store.db
          .selectFrom('audit_log')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    server = await startTestServer();
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
    source = await newDeployment(server, 'content source');
    const api = contentClient(server, source);
    // A folder with a sub-folder, a workbook in it with a draft and a published dashboard whose
    // widget uses a report, a notification of that dashboard, and grants to a user and a group.
    const sales = await api.folder('Sales & Marketing');
    const emea = await api.folder('EMEA', sales.id);
    const workbook = await api.ok('PUT', '/workbooks/by-slug/revenue-board', {
      name: 'Revenue board',
      folderId: emea.id,
      meta: { team: 'sales', tags: ['q1'] },
    });
    const report = await api.report({
      name: 'Revenue by month',
      sqlQuery: 'SELECT month, sum(amount) AS revenue\nFROM orders\nGROUP BY 1',
      spec: { mark: 'bar', encoding: { x: { field: 'month' }, y: { field: 'revenue' } } },
      workbookId: workbook.id,
      folderId: emea.id,
      preferences: { columnFormats: { revenue: { type: 'currency', decimalPlaces: 2 } } },
    });
    reportPublicId = report.publicId;
    const widgets = [{ id: 'w1', position: { x: 0, y: 0, w: 6, h: 4 }, config: { reportId: report.id } }];
    await api.ok('PUT', `/workbooks/${workbook.id}/dashboard`, {
      dashboardDraft: { title: 'Draft', widgets },
    });
    const board = await api.ok('POST', `/workbooks/${workbook.id}/publish`, {
      workbookId: workbook.id,
      title: 'Revenue',
      config: { title: 'Revenue', widgets },
    });
    await api.ok('POST', '/notifications', {
      scheduleType: 'WEEKLY',
      hour: 8,
      minute: 30,
      dayOfWeek: 1,
      timezone: 'Europe/Berlin',
      dashboardPublicId: board.publicId,
    });
    const group = await api.ok('POST', '/api/v1/groups', { name: 'Analysts', description: 'reads sales' });
    await api.grant({ type: 'FOLDER', id: sales.id, groupId: group.id, level: 'view' });
    const viewer = await api.ok('POST', '/api/v1/users', {
      email: 'viewer@example.com',
      username: 'viewer@example.com',
      role: 'viewer',
    });
    await api.grant({ type: 'REPORT', id: report.id, userId: viewer.id, level: 'edit' });
  }, 120_000);
  afterAll(() => server?.close());

  it('exports readable YAML with stable ids and no database ids, then round-trips byte for byte', async () => {
    const files = await exportOf(source);
    expect(Object.keys(files)).toEqual([
      'notifications/revenue-board-1.notification.yaml',
      'workspace/sales-marketing/_folder.yaml',
      'workspace/sales-marketing/emea/_folder.yaml',
      'workspace/sales-marketing/emea/revenue-board.workbook.yaml',
      'workspace/sales-marketing/emea/revenue-by-month.report.yaml',
    ]);
    const board = files['workspace/sales-marketing/emea/revenue-board.workbook.yaml']!;
    expect(board).toMatch(/^kind: workbook\nslug: revenue-board\nname: Revenue board\n/);
    // The widgets name their report by publicId, never by a database id.
    expect(board).toContain(`reportId: ${reportPublicId}`);
    expect(board).not.toMatch(/reportId: \d+$/m);
    expect(files['workspace/sales-marketing/_folder.yaml']).toContain('group: Analysts');
    expect(files['workspace/sales-marketing/emea/revenue-by-month.report.yaml']).toContain(
      'workbook: revenue-board',
    );
    expect(files['notifications/revenue-board-1.notification.yaml']).toContain('workbook: revenue-board');
    for (const text of Object.values(files))
      expect(text).not.toMatch(/\b(id|deploymentId|workbookId|folderId): \d/);

    const target = await newDeployment(server, 'content target');
    const planned = await plan(target, files);
    expect(planned.status).toBe(200);
    expect(planned.body.summary).toEqual({ create: 5, update: 0, delete: 0 });
    expect(planned.body.changes.map((c: JsonBody) => `${c.action} ${c.kind} ${c.id}`)).toEqual([
      'create folder sales-marketing',
      'create folder sales-marketing/emea',
      'create workbook revenue-board',
      `create report ${reportPublicId}`,
      'create notification revenue-board-1',
    ]);
    const applied = await apply(target, files);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body.applied).toBe(true);
    const again = await exportOf(target);
    expect(again).toEqual(files);
    for (const [path, text] of Object.entries(files))
      expect(Buffer.from(again[path]!).equals(Buffer.from(text))).toBe(true);

    // Applied through the services: the target's report answers the API with its folder and workbook.
    const reports = await call('GET', `/api/v1/deployments/${target}/reports?first=10`);
    expect(reports.body.items).toHaveLength(1);
    expect(reports.body.items[0]).toMatchObject({ publicId: reportPublicId, name: 'Revenue by month' });
    const entries = await server.store.db
      .selectFrom('audit_log')
      .select('action')
      .where('action', 'in', ['folder.create', 'workbook.create', 'report.create', 'dashboard.publish'])
      .execute();
    expect(entries.length).toBeGreaterThanOrEqual(8);
  });

  it('plans nothing for an unchanged directory, and a second apply changes nothing', async () => {
    const files = await exportOf(source);
    expect((await plan(source, files)).body).toEqual({
      changes: [],
      summary: { create: 0, update: 0, delete: 0 },
    });
    const before = await auditCount();
    const second = await apply(source, files);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ applied: false, changes: [] });
    expect(await auditCount()).toBe(before);
  });

  it('shows an edited file as exactly that change, field by field, and applies it', async () => {
    const files = await exportOf(source);
    const reportFile = 'workspace/sales-marketing/emea/revenue-by-month.report.yaml';
    const folderFile = 'workspace/sales-marketing/_folder.yaml';
    const edited = {
      ...files,
      [reportFile]: files[reportFile]!.replace('name: Revenue by month', 'name: Monthly revenue'),
      [folderFile]: files[folderFile]!.replace('level: view', 'level: edit'),
    };
    const planned = await plan(source, edited);
    expect(planned.body.changes).toEqual([
      {
        action: 'update',
        kind: 'folder',
        id: 'sales-marketing',
        file: folderFile,
        fields: [{ field: 'grants/group Analysts', before: 'view', after: 'edit' }],
      },
      {
        action: 'update',
        kind: 'report',
        id: reportPublicId,
        file: reportFile,
        fields: [{ field: 'name', before: 'Revenue by month', after: 'Monthly revenue' }],
      },
    ]);
    expect((await apply(source, edited)).body.summary).toEqual({ create: 0, update: 2, delete: 0 });
    const after = await exportOf(source);
    // The report's file is named after its new name; nothing else moved.
    expect(after['workspace/sales-marketing/emea/monthly-revenue.report.yaml']).toContain(
      'name: Monthly revenue',
    );
    expect(after[folderFile]).toContain('level: edit');
    expect((await plan(source, after)).body.changes).toEqual([]);
  });

  it('deletes the item of a deleted file', async () => {
    const files = await exportOf(source);
    const { ['notifications/revenue-board-1.notification.yaml']: _gone, ...rest } = files;
    const planned = await plan(source, rest);
    expect(planned.body.changes).toEqual([
      {
        action: 'delete',
        kind: 'notification',
        id: 'revenue-board-1',
        file: 'notifications/revenue-board-1.notification.yaml',
        fields: [],
      },
    ]);
    await apply(source, rest);
    const left = await server.store.db
      .selectFrom('notifications')
      .select('id')
      .where('deployment_id', '=', source)
      .execute();
    expect(left).toEqual([]);
    expect(Object.keys(await exportOf(source))).not.toContain(
      'notifications/revenue-board-1.notification.yaml',
    );
  });

  it('refuses a bad file with a 400 naming the file and the field, and changes nothing', async () => {
    const files = await exportOf(source);
    const folderFile = 'workspace/sales-marketing/_folder.yaml';
    const cases: [Files, string][] = [
      [
        { ...files, [folderFile]: files[folderFile]!.replace(/position: \d+/, 'position: -3') },
        `files[${folderFile}]/position`,
      ],
      [{ ...files, [folderFile]: 'kind: folder\nname: [unclosed\n' }, `files[${folderFile}]`],
      [
        { ...files, [folderFile]: files[folderFile]!.replace('group: Analysts', 'group: Nobody') },
        `files[${folderFile}]/grants/1/group`,
      ],
      [{ ...files, 'workspace/notes.txt': 'hello' }, 'files[workspace/notes.txt]'],
      // A folder renamed in its file but not its directory: the directory is the folder's identity.
      [
        { ...files, [folderFile]: files[folderFile]!.replace('name: Sales & Marketing', 'name: Marketing') },
        `files[${folderFile}]/name`,
      ],
    ];
    const before = await exportOf(source);
    const audits = await auditCount();
    for (const [bad, field] of cases) {
      for (const call of [plan, apply]) {
        const res = await call(source, bad);
        expect(res.status, JSON.stringify(res.body)).toBe(400);
        expect(
          res.body.errors.map((e: { field: string }) => e.field),
          JSON.stringify(res.body),
        ).toContain(field);
      }
    }
    // A problem found only while applying (an invalid published dashboard, spec 2.2) rolls back
    // everything done before it: the new folder is not there either.
    const boardFile = Object.keys(files).find((f) => f.endsWith('.workbook.yaml'))!;
    const late = {
      ...files,
      'workspace/new-folder/_folder.yaml': 'kind: folder\nname: New folder\nposition: 0\ngrants: []\n',
      [boardFile]: files[boardFile]!.replace('title: Revenue\n', 'title: Revenue 2\n').replace(
        /(published:[\s\S]*?config:\n)/,
        '$1      theme:\n        primaryColor: 7\n',
      ),
    };
    const res = await apply(source, late);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.errors[0].field).toMatch(
      new RegExp(`^files\\[${boardFile.replace(/[.[\]]/g, '\\$&')}\\]/dashboard/published/config/theme`),
    );
    expect(await exportOf(source)).toEqual(before);
    expect(await auditCount()).toBe(audits);
  });

  it('creates each item once under concurrent applies of one directory', async () => {
    const files = await exportOf(source);
    const target = await newDeployment(server, 'content concurrent');
    const answers = await Promise.all(Array.from({ length: 4 }, () => apply(target, files)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(answers.filter((a) => a.body.applied)).toHaveLength(1);
    const count = async (table: 'folders' | 'workbooks' | 'reports') =>
      (await server.store.db.selectFrom(table).select('id').where('deployment_id', '=', target).execute())
        .length;
    expect([await count('folders'), await count('workbooks'), await count('reports')]).toEqual([2, 1, 1]);
    expect(await exportOf(target)).toEqual(files);
  });

  it('is for admins only', async () => {
    const { key } = await userWithKey(server, 'developer');
    const res = await fetch(`${base}/api/v1/deployments/${source}/content`, { headers: bearer(key) });
    expect(res.status).toBe(403);
  });
});
