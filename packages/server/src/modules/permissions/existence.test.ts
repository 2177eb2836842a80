import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { embedToken } from '../embed/test-support.ts';

/**
 * An embed token in creator mode must not learn that another tenant's content exists (spec 4.3
 * rule 2): what it may not see answers exactly what an id that exists nowhere answers, same status
 * and same body but for the id (AccessContext.require and its Subject). Over real HTTP on
 * loopback, on the store the run was started with.
 */
describe('a hidden item answers as a missing one', () => {
  let server: TestServer;
  let base: string;
  let deploymentId: number;
  /** An id that no folder, workbook, report or grant has. */
  const unknown = 987654;
  /** Made by acme's creator or the admin; bolt's creator (`outsider`) may see none of it. */
  const hidden = {} as { workbookId: number; reportId: number; folderId: number; grantId: number };
  let outsider: string;
  /** The outsider's own workbook, to publish and share from. */
  let ownWorkbookId: number;

  async function call(token: string, method: string, path: string, body?: unknown) {
    const res = await fetch(`${base}/api/v1/deployments/${deploymentId}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : JSON.parse(text) };
  }

  /**
   * The answer with the given id written as `<id>` wherever it appears as a number of its own (past
   * the deployment's id in `instance`), and without `requestId`, which differs per request.
   */
  const withoutId = (answer: { status: number; body: Record<string, unknown> }, id: number) => {
    const { requestId: _, ...body } = answer.body;
    const text = JSON.stringify(body)
      .replaceAll(`/deployments/${deploymentId}/`, '/deployments/<deployment>/')
      .replace(new RegExp(`\\b${id}\\b`, 'g'), '<id>');
    return { status: answer.status, body: JSON.parse(text) };
  };

  /** Sends the request for the hidden id and for the unknown one; both answers must be one. */
  async function expectSameAnswer(
    request: (id: number) => [method: string, path: string, body?: unknown],
    hiddenId: number,
    expected: { status: number; code: string },
  ) {
    const seen = await call(outsider, ...request(hiddenId));
    const none = await call(outsider, ...request(unknown));
    expect(withoutId(seen, hiddenId)).toEqual(withoutId(none, unknown));
    expect(none.status).toBe(expected.status);
    expect(none.body.code).toBe(expected.code);
  }

  beforeAll(async () => {
    server = await startTestServer();
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const address = server.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    base = `http://127.0.0.1:${address.port}`;
    deploymentId = server.demoDeploymentId;
    const creator = (embedTenantName: string, externalId: string) =>
      embedToken(server, {
        deploymentId,
        externalId,
        creatorMode: true,
        embedTenantName,
        tenantGroups: ['ops'],
        tenantGroupDefinitions: [{ name: 'ops', description: `ops of ${embedTenantName}` }],
      });
    const ada = await creator('acme', 'ada');
    outsider = await creator('bolt', 'dee');

    const workbook = await call(ada, 'POST', '/workbooks', { name: 'Acme sales' });
    expect(workbook.status).toBe(200);
    hidden.workbookId = workbook.body.id;
    const report = await call(ada, 'POST', '/reports', {
      name: 'Answer',
      sqlQuery: 'SELECT 42 AS answer',
      workbookId: hidden.workbookId,
    });
    expect(report.status).toBe(200);
    hidden.reportId = report.body.id;
    const grants = await call(ada, 'GET', `/permissions?type=WORKBOOK&id=${hidden.workbookId}`);
    expect(grants.status).toBe(200);
    hidden.grantId = grants.body.items[0].id;
    const folder = await call(server.adminKey, 'POST', '/folders', { name: 'House folder' });
    expect(folder.status).toBe(200);
    hidden.folderId = folder.body.id;
    const own = await call(outsider, 'POST', '/workbooks', { name: 'Bolt board' });
    expect(own.status).toBe(200);
    ownWorkbookId = own.body.id;
  });
  afterAll(() => server?.close());

  it('revoking a grant on a hidden item answers as an unknown grant', async () => {
    await expectSameAnswer((id) => ['DELETE', `/permissions/${id}`], hidden.grantId, {
      status: 404,
      code: 'permission_not_found',
    });
    // Nothing was revoked: its owner still holds it.
    const admin = await call(server.adminKey, 'GET', `/permissions?type=WORKBOOK&id=${hidden.workbookId}`);
    expect(admin.body.items.map((g: { id: number }) => g.id)).toContain(hidden.grantId);
  });

  it('granting or listing grants on a hidden folder, workbook or report answers as an unknown one', async () => {
    for (const [type, id, code] of [
      ['FOLDER', hidden.folderId, 'folder_not_found'],
      ['WORKBOOK', hidden.workbookId, 'workbook_not_found'],
      ['REPORT', hidden.reportId, 'report_not_found'],
    ] as const) {
      await expectSameAnswer(
        (x) => ['PUT', '/permissions', { type, id: x, embedGroupId: 1, level: 'view' }],
        id,
        {
          status: 404,
          code,
        },
      );
      await expectSameAnswer((x) => ['GET', `/permissions?type=${type}&id=${x}`], id, { status: 404, code });
    }
  });

  it('reading, changing, deleting or duplicating a hidden workbook or report answers as an unknown one', async () => {
    const notFound = (code: string) => ({ status: 404, code });
    const workbook = notFound('workbook_not_found');
    await expectSameAnswer((id) => ['GET', `/workbooks/${id}`], hidden.workbookId, workbook);
    await expectSameAnswer((id) => ['PUT', `/workbooks/${id}`, { name: 'x' }], hidden.workbookId, workbook);
    await expectSameAnswer((id) => ['DELETE', `/workbooks/${id}`], hidden.workbookId, workbook);
    await expectSameAnswer((id) => ['POST', `/workbooks/${id}/duplicate`, {}], hidden.workbookId, workbook);
    await expectSameAnswer(
      (id) => ['POST', `/workbooks/${id}/publish`, { workbookId: id }],
      hidden.workbookId,
      workbook,
    );
    const report = notFound('report_not_found');
    await expectSameAnswer((id) => ['GET', `/reports/${id}`], hidden.reportId, report);
    await expectSameAnswer((id) => ['PUT', `/reports/${id}`, { name: 'x' }], hidden.reportId, report);
    await expectSameAnswer((id) => ['DELETE', `/reports/${id}`], hidden.reportId, report);
    const admin = await call(server.adminKey, 'GET', `/workbooks/${hidden.workbookId}`);
    expect(admin.body.name).toBe('Acme sales');
  });

  it('naming a hidden folder, workbook or report in a body answers as naming an unknown one', async () => {
    const invalidFolder = { status: 400, code: 'invalid_folder' };
    await expectSameAnswer(
      (id) => ['POST', '/workbooks', { name: 'x', folderId: id }],
      hidden.folderId,
      invalidFolder,
    );
    await expectSameAnswer(
      (id) => ['PUT', `/workbooks/${ownWorkbookId}`, { folderId: id }],
      hidden.folderId,
      invalidFolder,
    );
    await expectSameAnswer(
      (id) => ['POST', '/reports', { name: 'x', sqlQuery: 'SELECT 1', workbookId: id }],
      hidden.workbookId,
      { status: 400, code: 'validation_failed' },
    );
    await expectSameAnswer(
      (id) => [
        'POST',
        `/workbooks/${ownWorkbookId}/publish`,
        {
          workbookId: ownWorkbookId,
          config: { widgets: [{ id: 'w1', position: { x: 0, y: 0, w: 1, h: 1 }, config: { reportId: id } }] },
        },
      ],
      hidden.reportId,
      { status: 400, code: 'invalid_widget_report' },
    );
    // Nothing was made from those requests.
    const list = await call(outsider, 'GET', '/workbooks');
    expect(list.body.items.map((w: { id: number }) => w.id)).toEqual([ownWorkbookId]);
  });
});
