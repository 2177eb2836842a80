import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { contentClient, newDeployment } from '../workspace/test-client.ts';

describe('PUT /workbooks/by-slug/{slug}: idempotent upsert (issue 25 item 4)', () => {
  let server: TestServer;
  let deploymentId: number;
  let api: ReturnType<typeof contentClient>;
  beforeAll(async () => {
    server = await startTestServer();
    deploymentId = await newDeployment(server);
    api = contentClient(server, deploymentId);
  });
  afterAll(() => server?.close());

  const rowsWithSlug = async (slug: string) =>
    (
      await server.store.db
        .selectFrom('workbooks')
        .select('id')
        .where('deployment_id', '=', deploymentId)
        .where('slug', '=', slug)
        .execute()
    ).length;

  it('creates when absent and updates when present: twice gives the same id and one row', async () => {
    const first = await api.call('PUT', '/workbooks/by-slug/Sales-Overview ', {
      name: 'Sales',
      meta: { team: 'sales' },
    });
    expect(first.status).toBe(200);
    // The slug is trimmed and lowercased (the reference); the answer is a Workbook.
    expect(first.body).toMatchObject({
      type: 'WORKBOOK',
      slug: 'sales-overview',
      name: 'Sales',
      meta: { team: 'sales' },
    });
    const again = await api.call('PUT', '/workbooks/by-slug/sales-overview', {
      name: 'Sales',
      meta: { region: 'EU' },
    });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    // Only the fields sent change; meta is merged into what the workbook has.
    expect(again.body.meta).toEqual({ team: 'sales', region: 'EU' });
    expect(await rowsWithSlug('sales-overview')).toBe(1);
    const read = await api.ok('GET', `/workbooks/${first.body.id}`);
    expect(read).toMatchObject({ slug: 'sales-overview', name: 'Sales' });
  });

  it('creates one workbook from 8 concurrent identical upserts', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        api.call('PUT', '/workbooks/by-slug/concurrent', { name: 'Concurrent' }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await rowsWithSlug('concurrent')).toBe(1);
  });

  it('checks access for the branch it takes and refuses a bad slug with the field named', async () => {
    const viewer = await userWithKey(server, 'viewer');
    const owned = await api.ok('PUT', '/workbooks/by-slug/guarded', { name: 'Guarded' });
    await api.grant({ type: 'WORKBOOK', id: owned.id, userId: viewer.user.id, level: 'view' });
    const dev = await userWithKey(server, 'developer');
    await api.grant({ type: 'WORKBOOK', id: owned.id, userId: dev.user.id, level: 'view' });
    const refused = await api.call('PUT', '/workbooks/by-slug/guarded', { name: 'Taken over' }, dev.key);
    expect(refused.status).toBe(403);
    expect((await api.ok('GET', `/workbooks/${owned.id}`)).name).toBe('Guarded');
    const bad = await api.call('PUT', '/workbooks/by-slug/-bad slug', { name: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toContainEqual(expect.objectContaining({ field: 'params/slug' }));
  });
});
