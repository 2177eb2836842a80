import { sql } from 'kysely';
import { PNG } from 'pngjs';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { contentClient } from '../workspace/test-client.ts';
import { pngMagic, publishNotificationBoard } from './test-support.ts';

/**
 * The reference's Dashboard Exports group: submit, poll, download, with the notifications'
 * renderer; manage access, `renderAs` for tenant admins, 404 for another user's or an expired
 * job, 409 while rendering and 422 once failed.
 */
describe('dashboard exports', () => {
  let server: TestServer;
  let board: Awaited<ReturnType<typeof publishNotificationBoard>>;
  const base = () => `/api/v1/deployments/${server.demoDeploymentId}/dashboard-exports`;
  const call = async (method: 'GET' | 'POST', url: string, payload?: unknown, key = server.adminKey) => {
    const res = await server.app.inject({
      method,
      url,
      headers: bearer(key),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return res;
  };
  async function finished(jobId: string, key = server.adminKey) {
    for (let i = 0; i < 600; i++) {
      const res = await call('GET', `${base()}/${jobId}`, undefined, key);
      const body = res.json();
      if (body.status === 'completed' || body.status === 'failed') return body;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('export did not finish');
  }

  beforeAll(async () => {
    // Exports render in replicas that run the scheduler: this one does (its passes are a minute apart).
    server = await startTestServer({ scheduler: { disabled: false, intervalMs: 60_000, concurrency: 2 } });
    board = await publishNotificationBoard(server);
  });
  afterAll(() => server?.close());

  it('renders PNG and PDF with filters, and serves the file as an attachment', async () => {
    const png = await call('POST', base(), { format: 'png', dashboardPublicId: board.publicId });
    expect(png.statusCode).toBe(200);
    const job = png.json();
    expect(job.jobId).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(new Date(job.expiresAt).getTime() - Date.now()).toBeGreaterThan(4 * 60_000);
    expect(await finished(job.jobId)).toEqual({
      status: 'completed',
      progress: 100,
      error: null,
      contentType: 'image/png',
    });
    const file = await call('GET', `${base()}/${job.jobId}/download`);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.headers['content-disposition']).toBe('attachment; filename="dashboard.png"');
    expect(file.rawPayload.subarray(0, 8)).toEqual(pngMagic);
    expect(PNG.sync.read(file.rawPayload).width).toBe(1200);

    const pdf = await call('POST', base(), {
      format: 'pdf',
      dashboardId: board.dashboardId,
      filters: [{ member: 'orders.status', operator: 'equals', value: 'returned' }],
    });
    const pdfJob = pdf.json();
    expect((await finished(pdfJob.jobId)).contentType).toBe('application/pdf');
    const download = await call('GET', `${base()}/${pdfJob.jobId}/download?filename=orders%20report`);
    expect(download.headers['content-disposition']).toBe('attachment; filename="orders report.pdf"');
    expect(download.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(download.rawPayload)), {
      mergePages: true,
    });
    expect(text).toContain('returned');
    expect(text).not.toContain('completed');
  });

  it('checks the body: exactly one dashboard of this deployment, a known format', async () => {
    for (const [payload, field] of [
      [{ format: 'png' }, 'dashboardId'],
      [
        { format: 'png', dashboardId: board.dashboardId, dashboardPublicId: board.publicId },
        'dashboardPublicId',
      ],
      [{ format: 'jpeg', dashboardId: board.dashboardId }, 'format'],
      [
        {
          format: 'png',
          dashboardId: board.dashboardId,
          memberSwitchers: [{ member: 'a.b', selected: 'c' }],
        },
        'memberSwitchers',
      ],
    ] as const) {
      const res = await call('POST', base(), payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.body).toContain(field);
    }
    const missing = await call('POST', base(), { format: 'png', dashboardPublicId: 'nope' });
    expect(missing.statusCode).toBe(404);
  });

  it('needs manage access; renderAs needs a tenant admin; a job is its submitter’s only', async () => {
    const viewer = await userWithKey(server, 'viewer');
    const api = contentClient(server, server.demoDeploymentId);
    await api.grant({ type: 'WORKBOOK', id: board.workbookId, userId: viewer.user.id, level: 'view' });
    const refused = await call('POST', base(), { format: 'png', dashboardId: board.dashboardId }, viewer.key);
    expect(refused.statusCode).toBe(403);
    const manager = await userWithKey(server, 'developer');
    await api.grant({ type: 'WORKBOOK', id: board.workbookId, userId: manager.user.id, level: 'manage' });
    const own = await call('POST', base(), { format: 'png', dashboardId: board.dashboardId }, manager.key);
    expect(own.statusCode).toBe(200);
    const asOther = await call(
      'POST',
      base(),
      { format: 'png', dashboardId: board.dashboardId, renderAs: { type: 'USER', userId: viewer.user.id } },
      manager.key,
    );
    expect(asOther.statusCode).toBe(403);
    // Another user's job does not exist for the admin either.
    const theirs = own.json().jobId;
    expect((await call('GET', `${base()}/${theirs}`)).statusCode).toBe(404);
    expect((await call('GET', `${base()}/${theirs}/download`)).statusCode).toBe(404);
    expect((await finished(theirs, manager.key)).status).toBe('completed');

    const asViewer = await call('POST', base(), {
      format: 'png',
      dashboardId: board.dashboardId,
      renderAs: { type: 'USER', email: viewer.user.email.toUpperCase() },
    });
    expect(asViewer.statusCode).toBe(200);
    expect((await finished(asViewer.json().jobId)).status).toBe('completed');
    const nobody = await call('POST', base(), {
      format: 'png',
      dashboardId: board.dashboardId,
      renderAs: { type: 'USER', userId: 999999 },
    });
    expect(nobody.statusCode).toBe(404);
  });

  it('answers 409 while rendering, 422 once failed, 404 once expired', async () => {
    const res = await call('POST', base(), { format: 'png', dashboardId: board.dashboardId });
    const { jobId } = res.json();
    await finished(jobId);
    const db = server.store.db;
    await sql`update dashboard_exports set status = 'processing' where id = ${jobId}`.execute(db);
    const busy = await call('GET', `${base()}/${jobId}/download`);
    expect(busy.statusCode).toBe(409);
    expect(busy.json().code).toBe('export_not_ready');
    await sql`update dashboard_exports set status = 'failed', error = 'boom' where id = ${jobId}`.execute(db);
    const failed = await call('GET', `${base()}/${jobId}/download`);
    expect(failed.statusCode).toBe(422);
    expect(failed.json().code).toBe('export_failed');
    expect((await call('GET', `${base()}/${jobId}`)).json()).toMatchObject({
      status: 'failed',
      error: 'boom',
    });
    await sql`update dashboard_exports set expires_at = now() - interval '1 second' where id = ${jobId}`.execute(
      db,
    );
    expect((await call('GET', `${base()}/${jobId}`)).statusCode).toBe(404);
    // The scheduler's pass removes it.
    await server.services.notifications.exports.work(new Date());
    const left = await db.selectFrom('dashboard_exports').select('id').where('id', '=', jobId).execute();
    expect(left).toEqual([]);
  });

  it('refuses a sixth export in flight with 429', async () => {
    const user = await userWithKey(server, 'admin');
    const db = server.store.db;
    // Five jobs in flight for this user, as a slow renderer would hold them.
    for (let i = 0; i < 5; i++)
      await db
        .insertInto('dashboard_exports')
        .values({
          id: `held-${i}-${user.user.id}`,
          tenant_id: server.tenantId,
          deployment_id: server.demoDeploymentId,
          dashboard_id: board.dashboardId,
          requested_by: user.user.id,
          format: 'png',
          status: 'processing',
          request: '{}',
          lease_until: new Date(Date.now() + 60_000),
          expires_at: new Date(Date.now() + 60_000),
        })
        .execute();
    const sixth = await call('POST', base(), { format: 'png', dashboardId: board.dashboardId }, user.key);
    expect(sixth.statusCode).toBe(429);
    expect(sixth.json().code).toBe('exports_in_flight');
  });
});
