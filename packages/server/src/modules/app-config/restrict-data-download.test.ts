import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { publishBoard, widgetData } from '../dashboard-data/test-support.ts';
import { embedApi, embedToken } from '../embed/test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

/**
 * The account's `restrictDataDownload` (app config, migration 0013): an admin sets it and every
 * published dashboard (spec 2.3) reports it: publish, the workbook's read, the embed dashboard read.
 */
describe('restrictDataDownload', () => {
  let server: TestServer;
  let board: Awaited<ReturnType<typeof publishBoard>>;
  beforeAll(async () => {
    server = await startTestServer();
    board = await publishBoard(server);
    const embed = await embedApi(server).send('PATCH', `/api/v1/embed/dashboard/${board.board.publicId}`, {
      allowEmbed: true,
    });
    expect(embed.status).toBe(200);
  });
  afterAll(() => server?.close());

  const send = async (method: 'GET' | 'PUT', url: string, key: string, payload?: object) => {
    const res = await server.app.inject({
      method,
      url,
      headers: bearer(key),
      ...(payload ? { payload } : {}),
    });
    return { status: res.statusCode, body: res.json() };
  };
  const config = (method: 'GET' | 'PUT', key = server.adminKey, payload?: object) =>
    send(method, '/api/v1/app-config', key, payload);

  /** What each spec 2.3 response says, read through the API as a client would. */
  async function reported(): Promise<Record<string, unknown>> {
    const publicId = board.board.publicId;
    const workbook = await send(
      'GET',
      `/api/v1/deployments/${server.demoDeploymentId}/workbooks/${board.workbook.id}`,
      server.adminKey,
    );
    const embedRead = await send('GET', `/api/v1/embed/dashboard/${publicId}`, server.adminKey);
    const token = await embedToken(server, {
      deploymentId: server.demoDeploymentId,
      externalId: 'reader',
      publicDashboardId: publicId,
    });
    const tokenRead = await send('GET', `/api/v1/embed/dashboard/${publicId}`, token);
    for (const r of [workbook, embedRead, tokenRead]) expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(workbook.body.publishedDashboard.publicId).toBe(publicId);
    return {
      appConfig: (await config('GET')).body.restrictDataDownload,
      workbook: workbook.body.publishedDashboard.restrictDataDownload,
      embedWithKey: embedRead.body.restrictDataDownload,
      embedWithToken: tokenRead.body.restrictDataDownload,
    };
  }
  const everywhere = (value: boolean) => ({
    appConfig: value,
    workbook: value,
    embedWithKey: value,
    embedWithToken: value,
  });

  it('is false by default, everywhere', async () => {
    expect(board.board.restrictDataDownload).toBe(false);
    expect(await reported()).toEqual(everywhere(false));
  });

  it('is set by an admin and reported by every published dashboard; widget data still answers', async () => {
    const set = await config('PUT', server.adminKey, { restrictDataDownload: true });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ restrictDataDownload: true, applyThemeGlobally: false });
    expect(await reported()).toEqual(everywhere(true));
    const again = await board.api.ok('POST', `/workbooks/${board.workbook.id}/publish`, {
      workbookId: board.workbook.id,
      config: board.board.config,
    });
    expect([again.versionNumber, again.restrictDataDownload]).toEqual([2, true]);
    // Spec 2.3: only the web app's download button goes; the widgets still need their rows.
    const rows = await widgetData(server, board.board.publicId, 'sql');
    expect(rows.status).toBe(200);
    expect(rows.body.data.length).toBeGreaterThan(0);
    // Changing another field leaves it as it was; it can be turned off again.
    await config('PUT', server.adminKey, { applyThemeGlobally: true });
    expect((await config('GET')).body).toMatchObject({
      applyThemeGlobally: true,
      restrictDataDownload: true,
    });
    expect((await config('PUT', server.adminKey, { restrictDataDownload: false })).status).toBe(200);
    expect(await reported()).toEqual(everywhere(false));
  });

  it('cannot be changed by a developer or a viewer (the route is admin-only)', async () => {
    expect((await config('PUT', server.adminKey, { restrictDataDownload: true })).status).toBe(200);
    const before = (await config('GET')).body;
    for (const role of ['developer', 'viewer'] as const) {
      const { key } = await userWithKey(server, role);
      const denied = await config('PUT', key, { restrictDataDownload: false });
      expect(denied.status).toBe(403);
      expect((await config('GET', key)).body.restrictDataDownload).toBe(true);
    }
    expect((await config('GET')).body).toEqual(before);
    expect(await reported()).toEqual(everywhere(true));
  });

  it('refuses a value that is not a boolean, naming the field, and changes nothing', async () => {
    expect((await config('PUT', server.adminKey, { restrictDataDownload: true })).status).toBe(200);
    const before = (await config('GET')).body;
    for (const value of ['false', 0, null, {}]) {
      const bad = await config('PUT', server.adminKey, {
        applyThemeGlobally: false,
        restrictDataDownload: value,
      });
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['body/restrictDataDownload']);
    }
    expect((await config('GET')).body).toEqual(before);
    expect(await reported()).toEqual(everywhere(true));
  });
});
