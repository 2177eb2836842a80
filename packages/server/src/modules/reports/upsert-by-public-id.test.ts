import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { contentClient, newDeployment } from '../workspace/test-client.ts';

describe('PUT /reports/by-public-id/{publicId}: idempotent upsert (issue 25 item 4)', () => {
  let server: TestServer;
  let deploymentId: number;
  let api: ReturnType<typeof contentClient>;
  beforeAll(async () => {
    server = await startTestServer();
    deploymentId = await newDeployment(server);
    api = contentClient(server, deploymentId);
  });
  afterAll(() => server?.close());

  const rowsWith = async (publicId: string) =>
    (
      await server.store.db
        .selectFrom('reports')
        .select('id')
        .where('deployment_id', '=', deploymentId)
        .where('public_id', '=', publicId)
        .execute()
    ).length;

  it('creates when absent and updates when present: twice gives the same id and one row', async () => {
    const body = { name: 'Revenue', sqlQuery: 'SELECT 1' };
    const first = await api.call('PUT', '/reports/by-public-id/Rev000000001', body);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      type: 'REPORT',
      publicId: 'Rev000000001',
      name: 'Revenue',
      sqlQuery: 'SELECT 1',
    });
    const again = await api.call('PUT', '/reports/by-public-id/Rev000000001', { ...body, title: 'Monthly' });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body).toMatchObject({ name: 'Revenue', title: 'Monthly', sqlQuery: 'SELECT 1' });
    expect(await rowsWith('Rev000000001')).toBe(1);
  });

  it('creates one report from 8 concurrent identical upserts', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        api.call('PUT', '/reports/by-public-id/Conc00000008', { name: 'Concurrent', sqlQuery: 'SELECT 1' }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await rowsWith('Conc00000008')).toBe(1);
  });

  it('refuses a malformed publicId, a differing body publicId, and an update without edit access', async () => {
    const bad = await api.call('PUT', '/reports/by-public-id/short', { name: 'x' });
    expect(bad.status).toBe(400);
    const differs = await api.call('PUT', '/reports/by-public-id/Abc000000001', { publicId: 'Xyz000000001' });
    expect(differs.status).toBe(400);
    expect(differs.body.errors).toContainEqual(expect.objectContaining({ field: 'body/publicId' }));
    expect(await rowsWith('Abc000000001')).toBe(0);
    const owned = await api.ok('PUT', '/reports/by-public-id/Own000000001', { name: 'Owned' });
    const dev = await userWithKey(server, 'developer');
    await api.grant({ type: 'REPORT', id: owned.id, userId: dev.user.id, level: 'view' });
    const refused = await api.call(
      'PUT',
      '/reports/by-public-id/Own000000001',
      { name: 'Taken over' },
      dev.key,
    );
    expect(refused.status).toBe(403);
    expect((await api.ok('GET', `/reports/${owned.id}`)).name).toBe('Owned');
  });
});
