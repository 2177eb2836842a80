import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { viewerSecurityContext } from './security-context.ts';
import { publishBoard, viewer, widgetData } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

type Row = Record<string, string>;

/**
 * The VIEWER's security context decides what a widget shows (DESIGN.md "Semantic layer and data
 * API"): the demo model's customers policy hides `email` outside group `admin` and keeps only the
 * rows of `userAttributes.country` when the viewer has one.
 */
describe('dashboard widget data under the viewer security context', () => {
  let server: TestServer;
  let publicId: string;
  let workbookId: number;
  beforeAll(async () => {
    server = await startTestServer();
    const board = await publishBoard(server);
    publicId = board.board.publicId;
    workbookId = board.workbook.id;
  });
  afterAll(() => server?.close());

  it('builds one security-context shape from the viewer', () => {
    expect(viewerSecurityContext({ id: 7, email: 'a@b.c', groups: ['g'] })).toEqual({
      serviceCloud: { groups: ['g'] },
      user: { id: 7, email: 'a@b.c' },
    });
    expect(
      viewerSecurityContext({ id: 7, email: 'a@b.c', groups: [], userAttributes: { country: 'DE' } }),
    ).toEqual({
      serviceCloud: { groups: [], userAttributes: { country: 'DE' } },
      user: { id: 7, email: 'a@b.c' },
    });
  });

  it('applies member-level policies: email only for group admin', async () => {
    const admin = await viewer(server, { workbookId, groups: ['admin'] });
    const plain = await viewer(server, { workbookId, groups: ['sales'] });
    const seen = await widgetData(server, publicId, 'email', {}, admin.key);
    expect(seen.status, JSON.stringify(seen.body)).toBe(200);
    expect(seen.body.data).toHaveLength(5);
    expect(seen.body.data[0]['customers.email']).toContain('@');
    const hidden = await widgetData(server, publicId, 'email', {}, plain.key);
    expect(hidden.status).toBe(400);
    expect(JSON.stringify(hidden.body)).toContain('customers.email');
    // A hidden member cannot be filtered on either.
    const filtered = await widgetData(
      server,
      publicId,
      'country',
      { filters: [{ member: 'customers.email', operator: 'contains', value: '@' }] },
      plain.key,
    );
    expect(filtered.status).toBe(400);
    expect(JSON.stringify(filtered.body)).toContain('customers.email');
  });

  it('applies row-level policies from the viewer attributes, whatever filters they send', async () => {
    const german = await viewer(server, { workbookId });
    const everyone = await viewer(server, { workbookId });
    const viewers = server.services.dashboardData.viewers;
    const before = viewers.userAttributes;
    // No attribute store exists yet: plug one in, as the store will (security-context.ts).
    viewers.userAttributes = async (_tenant, userId) => (userId === german.user.id ? { country: 'DE' } : {});
    try {
      const all = (await widgetData(server, publicId, 'country', {}, everyone.key)).body.data as Row[];
      expect(all.length).toBeGreaterThan(1);
      const de = all.find((r) => r['customers.country'] === 'DE');
      const mine = await widgetData(server, publicId, 'country', {}, german.key);
      expect(mine.status).toBe(200);
      expect(mine.body.data).toEqual([de]);
      const asked = await widgetData(
        server,
        publicId,
        'country',
        { filters: [{ member: 'customers.country', operator: 'notEquals', value: 'DE' }] },
        german.key,
      );
      expect(asked.body.data).toEqual([]);
      // A dashboard filter that joins customers into an orders widget brings its policy along.
      const joined = { filters: [{ member: 'customers.country', operator: 'set' }] };
      const total = (rows: Row[]) => rows.reduce((n, r) => n + Number(r['orders.count']), 0);
      const germanOrders = await widgetData(server, publicId, 'status', joined, german.key);
      const allOrders = await widgetData(server, publicId, 'status', joined, everyone.key);
      expect(total(germanOrders.body.data)).toBeGreaterThan(0);
      expect(total(germanOrders.body.data)).toBeLessThan(total(allOrders.body.data));
    } finally {
      viewers.userAttributes = before;
    }
  });
});
