import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { newDeployment } from '../workspace/test-client.ts';
import { frameAncestorsPolicy } from './frame-ancestors.ts';
import { embedApi, publishSimpleBoard } from './test-support.ts';

/** `GET /embed`, `GET`/`PATCH /embed/dashboard/{publicId}` with API keys, and the embed settings. */
describe('embeddable dashboards and embed settings', () => {
  let server: TestServer;
  let api: ReturnType<typeof embedApi>;
  let deploymentId: number;
  beforeAll(async () => {
    server = await startTestServer();
    api = embedApi(server);
    deploymentId = server.demoDeploymentId;
  });
  afterAll(() => server?.close());

  it("lists the published dashboards that allow embedding, within the key's deployments", async () => {
    const open = await publishSimpleBoard(server, deploymentId, true);
    await publishSimpleBoard(server, deploymentId, false);
    const other = await newDeployment(server, 'other');
    const elsewhere = await publishSimpleBoard(server, other, true);
    const ids = (body: { items: { publicId: string }[] }) => body.items.map((i) => i.publicId);
    expect(ids((await api.send('GET', '/api/v1/embed')).body)).toEqual([open.publicId, elsewhere.publicId]);
    expect(ids((await api.send('GET', `/api/v1/embed?deploymentId=${other}`)).body)).toEqual([
      elsewhere.publicId,
    ]);
    const scoped = await createKey(server, { name: 'scoped', deploymentIds: [other] });
    const listed = await embedApi(server, scoped.key).send('GET', '/api/v1/embed');
    expect(ids(listed.body)).toEqual([elsewhere.publicId]);
    expect(
      (await embedApi(server, scoped.key).send('GET', `/api/v1/embed?deploymentId=${deploymentId}`)).body
        .items,
    ).toEqual([]);
    expect(listed.body.items[0]).toMatchObject({
      deploymentId: other,
      workbookId: elsewhere.workbookId,
      versionNumber: 1,
    });
  });

  it('toggles allowEmbed for editors of the workbook only', async () => {
    const board = await publishSimpleBoard(server, deploymentId, false);
    const url = `/api/v1/embed/dashboard/${board.publicId}`;
    const developer = await userWithKey(server, 'developer');
    const denied = await embedApi(server, developer.key).send('PATCH', url, { allowEmbed: true });
    expect([denied.status, denied.body.code]).toEqual([403, 'content_access_denied']);
    expect((await api.send('PATCH', url, { allowEmbed: true })).body).toEqual({
      publicId: board.publicId,
      allowEmbed: true,
    });
    expect((await api.send('GET', url)).body.allowEmbed).toBe(true);
    expect((await api.send('PATCH', '/api/v1/embed/dashboard/none', { allowEmbed: true })).status).toBe(404);
    const viewer = await userWithKey(server, 'viewer');
    expect((await embedApi(server, viewer.key).send('GET', url)).body.code).toBe('content_access_denied');
  });

  it('keeps the allowed framing origins and builds the frame-ancestors policy from them', async () => {
    const saved = await api.send('PUT', '/api/v1/embed/settings', {
      frameAncestors: ['https://app.example.com', 'https://*.example.org:8443'],
    });
    expect(saved.body).toEqual({
      enabled: true,
      frameAncestors: ['https://app.example.com', 'https://*.example.org:8443'],
      showDashboardChat: true,
    });
    expect(await server.services.embedSettings.frameAncestorsHeader(server.tenantId)).toBe(
      "frame-ancestors 'self' https://app.example.com https://*.example.org:8443",
    );
    for (const bad of [
      '*',
      "'none'",
      'https://a.com/path',
      'javascript:alert(1)',
      'https://a.com; script-src *',
    ]) {
      const res = await api.send('PUT', '/api/v1/embed/settings', { frameAncestors: [bad] });
      expect(res.status, bad).toBe(400);
      expect(res.body.errors[0].field, bad).toBe('body/frameAncestors/0');
    }
    expect(frameAncestorsPolicy([])).toBe("frame-ancestors 'self'");
    expect(frameAncestorsPolicy(["'self'", 'https:'])).toBe("frame-ancestors 'self' https:");
  });
});
