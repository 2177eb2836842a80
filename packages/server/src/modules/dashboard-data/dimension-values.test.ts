import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { seedDemoDashboard } from '../../bootstrap/demo-dashboard.ts';
import { tokenFor } from '../data/test-support.ts';
import { publishBoard, viewer } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

interface Listed {
  member: string;
  type: string;
  values: string[];
  complete: boolean;
  notApplied?: string[];
}

/**
 * The dimension values a dashboard's filter controls list, read once per dashboard
 * (`POST .../dashboards/{publicId}/dimension-values`) under the viewer's security context.
 */
describe('dashboard dimension values', () => {
  let server: TestServer;
  let publicId: string;
  let workbookId: number;
  let demoId: string;
  beforeAll(async () => {
    server = await startTestServer();
    const board = await publishBoard(server);
    publicId = board.board.publicId;
    workbookId = board.workbook.id;
    const demo = await seedDemoDashboard(server.services, {
      tenantId: server.tenantId,
      userId: server.adminUserId,
      deploymentId: server.demoDeploymentId,
    });
    demoId = demo.publicId;
  });
  afterAll(() => server?.close());

  const values = async (body: Record<string, unknown> = {}, key = server.adminKey, board = publicId) => {
    const res = await server.app.inject({
      method: 'POST',
      url: `/api/v1/deployments/${server.demoDeploymentId}/dashboards/${board}/dimension-values`,
      headers: bearer(key),
      payload: body,
    });
    return { status: res.statusCode, body: res.json() };
  };
  const byMember = (body: { members: Listed[] }) => new Map(body.members.map((m) => [m.member, m]));
  const load = async (query: unknown) => {
    const token = await tokenFor(server, server.demoDeploymentId, { securityContext: {} });
    const res = await server.app.inject({
      method: 'POST',
      url: `/data/${server.demoDeploymentId}/cubejs-api/v1/load`,
      headers: { authorization: token },
      payload: { query },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as Record<string, string>[];
  };

  it("lists every dimension of the dashboard's widgets in one answer, as /v1/load has them", async () => {
    const res = await values();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const lists = byMember(res.body);
    expect([...lists.keys()].sort()).toEqual([
      'customers.country',
      'customers.email',
      'orders.created_at',
      'orders.status',
    ]);
    const statuses = await load({ dimensions: ['orders.status'], order: { 'orders.status': 'asc' } });
    expect(lists.get('orders.status')).toEqual({
      member: 'orders.status',
      type: 'string',
      values: statuses.map((r) => r['orders.status']),
      complete: true,
      notApplied: [],
    });
    expect(lists.get('orders.created_at')?.type).toBe('time');
    expect(lists.get('customers.country')?.values.length).toBeGreaterThan(1);
  });

  it("applies the dashboard's other filters, but not a member's own, and searches and caps", async () => {
    const all = byMember((await values({ members: ['orders.status', 'customers.country'] })).body);
    const status = all.get('orders.status')!.values[0];
    const filters = [{ member: 'orders.status', operator: 'equals', value: status }];
    const res = await values({ members: ['orders.status', 'customers.country'], filters });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const filtered = byMember(res.body);
    // Its own filter does not narrow the list a control chooses from.
    expect(filtered.get('orders.status')!.values).toEqual(all.get('orders.status')!.values);
    const countries = await load({
      dimensions: ['customers.country'],
      filters: [{ member: 'orders.status', operator: 'equals', values: [status] }],
      order: { 'customers.country': 'asc' },
    });
    expect(filtered.get('customers.country')!.values).toEqual(countries.map((r) => r['customers.country']));

    const text = all.get('orders.status')!.values[1];
    const search = text.slice(1, 3).toUpperCase();
    const searched = (await values({ members: ['orders.status'], search })).body.members[0] as Listed;
    expect(searched.values.length).toBeGreaterThan(0);
    expect(searched.values).toContain(text);
    expect(searched.values.every((v) => v.toLowerCase().includes(search.toLowerCase()))).toBe(true);

    const capped = (await values({ members: ['customers.country'], limit: 1 })).body.members[0] as Listed;
    expect(capped).toMatchObject({ values: [all.get('customers.country')!.values[0]], complete: false });
  });

  it('refuses members the dashboard does not show, and answers 403 without view access', async () => {
    const other = await values({ members: ['orders.status', 'customers.city'] });
    expect(other.status).toBe(400);
    expect(other.body.code).toBe('unknown_member');
    expect(JSON.stringify(other.body.errors)).toContain('body/members/1');
    const outsider = await viewer(server);
    expect((await values({}, outsider.key)).status).toBe(403);
    const bad = await values({ limit: 0 });
    expect(bad.status).toBe(400);
  });

  it('lists a member without the filters it cannot be joined to, and says which (issue 21)', async () => {
    // On the demo dashboard, products (line items' catalogue) and customers (orders') join only
    // through a cube neither is: a country picked must not empty the category and product lists.
    const members = ['products.category', 'products.name', 'orders.status', 'customers.country'];
    const all = byMember((await values({ members }, server.adminKey, demoId)).body);
    const country = all.get('customers.country')!.values[0];
    const filters = [{ member: 'customers.country', operator: 'equals', value: country }];
    const res = await values({ members, filters }, server.adminKey, demoId);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const lists = byMember(res.body);
    for (const member of ['products.category', 'products.name']) {
      expect(lists.get(member)!.values.length).toBeGreaterThan(0);
      expect(lists.get(member)!.values).toEqual(all.get(member)!.values);
      expect(lists.get(member)!.notApplied).toEqual(['customers.country']);
    }
    // A member that joins the filter is narrowed by it, as before.
    const statuses = await load({
      dimensions: ['orders.status'],
      filters: [{ member: 'customers.country', operator: 'equals', values: [country] }],
      order: { 'orders.status': 'asc' },
    });
    expect(lists.get('orders.status')!.values).toEqual(statuses.map((r) => r['orders.status']));
    expect(lists.get('orders.status')!.notApplied).toEqual([]);
    expect(lists.get('customers.country')!.notApplied).toEqual([]);
  });

  it("lists under the viewer's policies: row-level by attribute, a hidden member empty", async () => {
    const german = await viewer(server, { workbookId, groups: ['sales'] });
    const viewers = server.services.dashboardData.viewers;
    const before = viewers.userAttributes;
    viewers.userAttributes = async (_tenant, userId) => (userId === german.user.id ? { country: 'DE' } : {});
    try {
      const res = await values({ members: ['customers.country', 'customers.email'] }, german.key);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const lists = byMember(res.body);
      expect(lists.get('customers.country')!.values).toEqual(['DE']);
      expect(lists.get('customers.email')).toEqual({
        member: 'customers.email',
        type: 'unknown',
        values: [],
        complete: true,
        notApplied: [],
      });
    } finally {
      viewers.userAttributes = before;
    }
  });
});
