import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { publishBoard, widgetData } from '../dashboard-data/test-support.ts';
import { embedApi, embedToken } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

type Row = Record<string, string>;

/**
 * An embed token reads widget rows of the demo dashboard under the security context its session
 * baked in (spec 2.6): the demo model's customers policy keeps only the rows of
 * `userAttributes.country` and hides `email` outside global group `admin`.
 */
describe('widget data under an embed security context', () => {
  let server: TestServer;
  let publicId: string;
  const session = (body: Record<string, unknown>) =>
    embedToken(server, {
      deploymentId: server.demoDeploymentId,
      userAttributeDefinitions: [{ name: 'country', displayName: 'Country' }],
      ...body,
    });

  beforeAll(async () => {
    server = await startTestServer();
    publicId = (await publishBoard(server)).board.publicId;
    const api = embedApi(server);
    expect(
      (await api.send('PATCH', `/api/v1/embed/dashboard/${publicId}`, { allowEmbed: true })).status,
    ).toBe(200);
    await api.send('POST', '/api/v1/groups', { name: 'admin' });
  });
  afterAll(() => server?.close());

  it('gives two sessions with different userAttributes different rows of one widget', async () => {
    const everyone = await session({ externalId: 'all' });
    const all = (await widgetData(server, publicId, 'country', {}, everyone)).body.data as Row[];
    expect(all.length).toBeGreaterThan(2);
    const [first, second] = all;
    const asCountry = (country: string) =>
      session({ externalId: `in-${country}`, userAttributes: [{ name: 'country', value: country }] });
    const one = await widgetData(
      server,
      publicId,
      'country',
      {},
      await asCountry(first['customers.country']),
    );
    const two = await widgetData(
      server,
      publicId,
      'country',
      {},
      await asCountry(second['customers.country']),
    );
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual([first]);
    expect(two.body.data).toEqual([second]);
    // A filter the embedding page sends cannot widen the policy.
    const widened = await widgetData(
      server,
      publicId,
      'country',
      { filters: [{ member: 'customers.country', operator: 'equals', value: second['customers.country'] }] },
      await asCountry(first['customers.country']),
    );
    expect(widened.body.data).toEqual([]);
  });

  it('feeds global groups to member-level policies', async () => {
    const admin = await widgetData(server, publicId, 'email', {}, await session({ groups: ['admin'] }));
    expect(admin.status).toBe(200);
    expect(admin.body.data[0]['customers.email']).toContain('@');
    const plain = await widgetData(server, publicId, 'email', {}, await session({}));
    expect(plain.status).toBe(400);
    expect(JSON.stringify(plain.body)).toContain('customers.email');
  });

  it('reads the dashboard itself with the same token', async () => {
    const token = await session({ publicDashboardId: publicId });
    const res = await server.app.inject({
      method: 'GET',
      url: `/api/v1/embed/dashboard/${publicId}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ publicId, allowEmbed: true, status: 'published' });
    expect(res.json().config.widgets.map((w: { id: string }) => w.id)).toContain('country');
  });
});
