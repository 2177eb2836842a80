import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { storeChangedSince, storeMark } from '../../../test/store-changes.ts';
import { newDeployment } from '../workspace/test-client.ts';
import { notificationsApi, publishNotificationBoard } from './test-support.ts';

/**
 * The Notifications group over HTTP (spec 2.5, 4.5, 7, 8; the reference for what the spec leaves
 * out): every rule of create, the response shape, read, update, enable and disable, delete, the
 * list with its filters and pages, and recipients.
 */
describe('notifications API', () => {
  let server: TestServer;
  let board: Awaited<ReturnType<typeof publishNotificationBoard>>;
  let api: ReturnType<typeof notificationsApi>;

  beforeAll(async () => {
    server = await startTestServer();
    board = await publishNotificationBoard(server);
    api = notificationsApi(server);
  });
  afterAll(() => server?.close());

  it('creates a notification with the response of spec 2.5, cron and text from the schedule type', async () => {
    const created = await api.create({
      scheduleType: 'WEEKLY',
      minute: 15,
      hour: 9,
      dayOfWeek: 1,
      timezone: 'America/New_York',
      dashboardId: board.dashboardId,
      filters: [{ member: 'orders.status', operator: 'equals', value: 'completed', caseSensitive: true }],
      timeGrains: [{ member: 'orders.created_at', grain: 'month' }],
      notificationFormat: 'pdf',
      notificationEnabled: true,
    });
    expect(created).toMatchObject({
      deploymentId: server.demoDeploymentId,
      dashboardId: board.dashboardId,
      dashboardPublicId: board.publicId,
      cronExpression: '15 9 * * 1',
      humanReadableSchedule: 'At 09:15 AM, only on Monday',
      timezone: 'America/New_York',
      isEnabled: true,
      notificationEnabled: true,
      notificationFormat: 'pdf',
      notificationAiSummary: false,
      filters: [{ member: 'orders.status', operator: 'equals', value: 'completed', caseSensitive: true }],
      timeGrains: [{ member: 'orders.created_at', grain: 'month' }],
      ownerId: server.adminUserId,
    });
    // The next Monday 09:15 in New York, as a UTC instant.
    const next = new Date(created.nextFireAt);
    const local = new Intl.DateTimeFormat('en-US', {
      timeZone: 'America/New_York',
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hour12: false,
    }).format(next);
    expect(local).toBe('Mon 09:15');
    expect(await api.ok('GET', `/${created.id}`)).toEqual(created);
  });

  it('takes the dashboard by public id, defaults to UTC and png, and turns every type into cron', async () => {
    const cases = [
      [{ scheduleType: 'HOURLY', minute: 5 }, '5 * * * *', 'At 5 minutes past the hour'],
      [{ scheduleType: 'DAILY', hour: 18 }, '0 18 * * *', 'At 06:00 PM'],
      [
        { scheduleType: 'MONTHLY', dayOfMonth: 31, hour: 6 },
        '0 6 31 * *',
        'At 06:00 AM, on day 31 of the month',
      ],
      [{ scheduleType: 'CUSTOM', customCron: '*/15 8-17 * * 1-5' }, '*/15 8-17 * * 1-5', null],
    ] as const;
    for (const [fields, cron, text] of cases) {
      const n = await api.create({ ...fields, dashboardPublicId: board.publicId });
      expect(n.cronExpression).toBe(cron);
      expect(n.timezone).toBe('UTC');
      expect(n.notificationFormat).toBe('png');
      if (text) expect(n.humanReadableSchedule).toBe(text);
      else expect(n.humanReadableSchedule).toMatch(/Every 15 minutes/);
    }
  });

  it('refuses bad input with 400 naming each field, and writes nothing', async () => {
    const before = await storeMark(server);
    const cases: [Record<string, unknown>, string[]][] = [
      [
        { scheduleType: 'DAILY', hour: 24, minute: 60, dashboardId: board.dashboardId },
        ['body/hour', 'body/minute'],
      ],
      [{ scheduleType: 'WEEKLY', dayOfWeek: 7, dashboardId: board.dashboardId }, ['body/dayOfWeek']],
      [{ scheduleType: 'MONTHLY', dayOfMonth: 0, dashboardId: board.dashboardId }, ['body/dayOfMonth']],
      [{ scheduleType: 'CUSTOM', dashboardId: board.dashboardId }, ['body/customCron']],
      [
        { scheduleType: 'CUSTOM', customCron: '0 0 31 2 *', dashboardId: board.dashboardId },
        ['body/customCron'],
      ],
      [
        { scheduleType: 'CUSTOM', customCron: '0 * * *', dashboardId: board.dashboardId },
        ['body/customCron'],
      ],
      [
        { scheduleType: 'DAILY', timezone: 'Mars/Olympus', dashboardId: board.dashboardId },
        ['body/timezone'],
      ],
      [{ scheduleType: 'DAILY', timezone: '+01:00', dashboardId: board.dashboardId }, ['body/timezone']],
      [{ scheduleType: 'DAILY' }, ['body/dashboardId']],
      [
        { scheduleType: 'DAILY', dashboardId: board.dashboardId, dashboardPublicId: board.publicId },
        ['body/dashboardPublicId'],
      ],
      [
        { scheduleType: 'DAILY', dashboardId: board.dashboardId, notificationFormat: 'gif' },
        ['notificationFormat'],
      ],
      [{ scheduleType: 'YEARLY', dashboardId: board.dashboardId }, ['scheduleType']],
      [{ hour: 3, dashboardId: board.dashboardId }, ['scheduleType']],
      [
        { scheduleType: 'DAILY', dashboardId: board.dashboardId, notificationAiSummary: true },
        ['body/notificationAiSummary'],
      ],
      [{ scheduleType: 'DAILY', dashboardId: board.dashboardId, filters: [{ value: 'x' }] }, ['filters']],
      [
        {
          scheduleType: 'DAILY',
          dashboardId: board.dashboardId,
          timeGrains: [{ member: 'orders.created_at', grain: 'fortnight' }],
        },
        ['timeGrains'],
      ],
      [{ scheduleType: 'DAILY', dashboardId: board.dashboardId, color: 'blue' }, ['color']],
    ];
    for (const [body, fields] of cases) {
      const res = await api.call('POST', '', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const named = JSON.stringify(res.body.errors);
      for (const field of fields) expect(named, JSON.stringify(body)).toContain(field);
    }
    expect(await storeChangedSince(server, before)).toEqual([]);
  });

  it('answers 404 for a dashboard of another deployment, and for an unknown one', async () => {
    const other = await newDeployment(server, 'elsewhere');
    const theirs = await publishNotificationBoard(server, other);
    for (const body of [
      { dashboardId: theirs.dashboardId },
      { dashboardPublicId: theirs.publicId },
      { dashboardId: 999999 },
    ]) {
      const res = await api.call('POST', '', { scheduleType: 'DAILY', ...body });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('dashboard_not_found');
    }
    // And a notification of this deployment is not reachable through the other one.
    const mine = await api.create({ scheduleType: 'DAILY', dashboardId: board.dashboardId });
    const res = await notificationsApi(server, other).call('GET', `/${mine.id}`);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('notification_not_found');
  });

  it('is admin only', async () => {
    const developer = await userWithKey(server, 'developer');
    const n = await api.create({ scheduleType: 'DAILY', dashboardId: board.dashboardId });
    for (const [method, path] of [
      ['GET', ''],
      ['POST', ''],
      ['GET', `/${n.id}`],
      ['PUT', `/${n.id}`],
      ['DELETE', `/${n.id}`],
      ['GET', `/${n.id}/recipients`],
    ] as const) {
      const res = await api.call(
        method,
        path,
        method === 'GET' || method === 'DELETE' ? undefined : {},
        developer.key,
      );
      expect(res.status, `${method} ${path}`).toBe(403);
    }
  });

  it('updates a subset, restarts the schedule when enabled or recadenced, and deletes', async () => {
    const n = await api.create({ scheduleType: 'DAILY', hour: 6, minute: 0, dashboardId: board.dashboardId });
    const moved = await api.ok('PUT', `/${n.id}`, { hour: 7, timezone: 'Europe/Berlin' });
    expect(moved).toMatchObject({
      scheduleType: 'DAILY',
      hour: 7,
      minute: 0,
      cronExpression: '0 7 * * *',
      timezone: 'Europe/Berlin',
      notificationFormat: 'png',
    });
    const disabled = await api.ok('PUT', `/${n.id}`, { isEnabled: false });
    expect(disabled.isEnabled).toBe(false);
    expect(disabled.nextFireAt).toBeNull();
    const paused = await api.ok('PUT', `/${n.id}`, { isEnabled: true, notificationEnabled: false });
    expect(paused.nextFireAt).toBeNull();
    const resumed = await api.ok('PUT', `/${n.id}`, {
      notificationEnabled: true,
      notificationFormat: 'pdf',
      filters: [{ member: 'orders.status', value: 'completed' }],
    });
    expect(resumed).toMatchObject({ isEnabled: true, notificationEnabled: true, notificationFormat: 'pdf' });
    expect(new Date(resumed.nextFireAt).getTime()).toBeGreaterThan(Date.now());
    expect(resumed.filters).toEqual([{ member: 'orders.status', value: 'completed' }]);
    const custom = await api.ok('PUT', `/${n.id}`, { scheduleType: 'CUSTOM', customCron: '30 4 * * 0' });
    expect(custom.cronExpression).toBe('30 4 * * 0');
    const cleared = await api.ok('PUT', `/${n.id}`, { filters: null });
    expect(cleared.filters).toBeNull();

    const before = await storeMark(server);
    for (const [body, field] of [
      [{ hour: 99 }, 'body/hour'],
      [{ scheduleType: 'CUSTOM', customCron: 'nonsense' }, 'body/customCron'],
      [{ timezone: 'Nowhere/Land' }, 'body/timezone'],
    ] as const) {
      const res = await api.call('PUT', `/${n.id}`, body);
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.errors)).toContain(field);
    }
    expect(await storeChangedSince(server, before)).toEqual([]);

    expect((await api.call('DELETE', `/${n.id}`)).status).toBe(204);
    expect((await api.call('GET', `/${n.id}`)).status).toBe(404);
    expect((await api.call('DELETE', `/${n.id}`)).status).toBe(404);
    expect((await api.call('PUT', `/${n.id}`, { hour: 1 })).status).toBe(404);
  });

  it('adds, lists and removes recipients of every kind, idempotently', async () => {
    const n = await api.create({ scheduleType: 'DAILY', dashboardId: board.dashboardId });
    const member = await userWithKey(server, 'viewer');
    const added = await api.addRecipients(n.id, [
      { type: 'USER', userId: member.user.id },
      { type: 'EMAIL', email: 'Boss@Example.com', username: 'The Boss' },
      {
        type: 'EMBED_USER',
        embedTenantName: 'acme',
        externalId: 'ada@acme.example',
        securityContext: { region: 'EU' },
      },
      { type: 'WEBHOOK', url: 'https://hooks.example.com/tessera' },
    ]);
    expect(added.createdRecipients.map((r: { type: string }) => r.type)).toEqual([
      'USER',
      'EMAIL',
      'EMBED_USER',
      'WEBHOOK',
    ]);
    expect(added.createdRecipients[0]).toMatchObject({ userId: member.user.id, email: member.user.email });
    expect(added.createdRecipients[2]).toMatchObject({
      embedTenantName: 'acme',
      externalId: 'ada@acme.example',
      email: 'ada@acme.example',
    });
    expect(added.createdRecipients[3].secret).toMatch(/^whsec_/);

    const again = await api.addRecipients(n.id, [
      { type: 'USER', email: member.user.email.toUpperCase() },
      { type: 'EMAIL', email: 'boss@example.com' },
      {
        type: 'EMBED_USER',
        embedTenantName: 'acme',
        externalId: 'ADA@acme.example',
        securityContext: { region: 'US' },
      },
    ]);
    expect(again.createdRecipients).toEqual([]);
    expect(again.updatedRecipients.map((r: { type: string }) => r.type)).toEqual(['EMBED_USER']);
    expect(again.unchangedRecipients.map((r: { type: string }) => r.type)).toEqual(['USER', 'EMAIL']);
    expect(again.unchangedRecipients[0].secret).toBeUndefined();

    const list = await api.ok('GET', `/${n.id}/recipients?first=2`);
    expect(list.items).toHaveLength(2);
    expect(list.pageInfo.hasNextPage).toBe(true);
    const rest = await api.ok('GET', `/${n.id}/recipients?first=2&after=${list.pageInfo.endCursor}`);
    expect([...list.items, ...rest.items].map((r: { type: string }) => r.type)).toEqual([
      'WEBHOOK',
      'EMBED_USER',
      'EMAIL',
      'USER',
    ]);

    // The list filters of spec 4 find it by each kind of recipient.
    const ids = async (query: string) =>
      (await api.ok('GET', `?first=100&${query}`)).items.map((x: { id: number }) => x.id);
    expect(await ids(`recipientUserId=${member.user.id}`)).toEqual([n.id]);
    expect(await ids(`recipientEmail=${encodeURIComponent(member.user.email)}`)).toEqual([n.id]);
    expect(await ids('recipientEmail=boss%40example.com')).toEqual([n.id]);
    expect(await ids('recipientEmbedTenantName=acme&recipientExternalId=ada%40acme.example')).toEqual([n.id]);
    expect(await ids('recipientEmbedTenantName=acme&recipientExternalId=nobody')).toEqual([]);
    expect(await ids(`dashboardPublicId=${board.publicId}&recipientEmail=boss%40example.com`)).toEqual([
      n.id,
    ]);

    const embedUserId = added.createdRecipients[2].embedUserId;
    const removed = await api.call('DELETE', `/${n.id}/recipients`, {
      recipients: [
        { type: 'USER', id: member.user.id },
        { type: 'EMBED_USER', id: embedUserId, embedTenantName: 'acme' },
        { type: 'EMAIL', id: 'BOSS@example.com' },
        { type: 'SLACK', id: 'C123' },
        { type: 'USER', id: 424242 },
      ],
    });
    expect(removed.status).toBe(204);
    const left = await api.ok('GET', `/${n.id}/recipients`);
    expect(left.items.map((r: { type: string }) => r.type)).toEqual(['WEBHOOK']);
  });

  it('refuses recipients that do not resolve, naming each, and writes none of the request', async () => {
    const n = await api.create({ scheduleType: 'DAILY', dashboardId: board.dashboardId });
    const before = await storeMark(server);
    const res = await api.call('POST', `/${n.id}/recipients`, {
      recipients: [
        { type: 'EMAIL', email: 'fine@example.com' },
        { type: 'USER', userId: 987654 },
        { type: 'USER', userId: 1, email: 'both@example.com' },
        { type: 'EMAIL', email: 'not-an-address' },
        { type: 'EMBED_USER', embedTenantName: 'acme', externalId: 'no-email-here' },
        { type: 'EMBED_USER', externalId: 'x@example.com' },
        {
          type: 'EMBED_USER',
          embedTenantName: 'acme',
          externalId: 'g@example.com',
          groups: ['no such group'],
        },
        { type: 'SLACK', channelId: 'C1' },
        { type: 'WEBHOOK', url: 'ftp://example.com/x' },
      ],
    });
    expect(res.status).toBe(400);
    const fields = res.body.errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual([
      'body/recipients/1/userId',
      'body/recipients/2/email',
      'body/recipients/3/email',
      'body/recipients/4/email',
      'body/recipients/5/embedTenantName',
      'body/recipients/6/groups/0',
      'body/recipients/7/type',
      'body/recipients/8/url',
    ]);
    expect(await storeChangedSince(server, before)).toEqual([]);
    expect((await api.call('POST', `/${n.id}/recipients`, { recipients: [] })).status).toBe(400);
    expect(
      (await api.call('POST', '/999999/recipients', { recipients: [{ type: 'EMAIL', email: 'a@b.co' }] }))
        .status,
    ).toBe(404);
  });

  it('adds the same recipient from many requests at once as one subscription', async () => {
    const n = await api.create({ scheduleType: 'DAILY', dashboardId: board.dashboardId });
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        api.call('POST', `/${n.id}/recipients`, {
          recipients: [{ type: 'EMAIL', email: 'race@example.com' }],
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
    const created = results.filter((r) => r.body.createdRecipients.length === 1);
    expect(created).toHaveLength(1);
    expect((await api.ok('GET', `/${n.id}/recipients`)).items).toHaveLength(1);
  });

  it('lists newest first with cursor pages and checks its filters', async () => {
    const dep = await newDeployment(server, 'listing');
    const own = await publishNotificationBoard(server, dep);
    const local = notificationsApi(server, dep);
    const made: number[] = [];
    for (let i = 0; i < 5; i++)
      made.push((await local.create({ scheduleType: 'HOURLY', minute: i, dashboardId: own.dashboardId })).id);
    const first = await local.ok('GET', '?first=3');
    expect(first.items.map((x: { id: number }) => x.id)).toEqual(made.slice(2).reverse());
    const second = await local.ok('GET', `?first=3&after=${first.pageInfo.endCursor}`);
    expect(second.items.map((x: { id: number }) => x.id)).toEqual(made.slice(0, 2).reverse());
    expect(second.pageInfo.hasNextPage).toBe(false);
    expect((await local.ok('GET', `?dashboardId=${own.dashboardId}`)).items).toHaveLength(5);
    expect((await local.ok('GET', '?dashboardPublicId=unknown')).items).toEqual([]);
    for (const [query, field] of [
      [`dashboardId=${own.dashboardId}&dashboardPublicId=${own.publicId}`, 'dashboardPublicId'],
      ['recipientUserId=1&recipientEmail=a%40b.co', 'recipientEmail'],
      [
        'recipientEmail=a%40b.co&recipientEmbedTenantName=acme&recipientExternalId=x',
        'recipientEmbedTenantName',
      ],
      ['recipientEmbedTenantName=acme', 'recipientExternalId'],
    ] as const) {
      const res = await local.call('GET', `?${query}`);
      expect(res.status, query).toBe(400);
      expect(JSON.stringify(res.body.errors)).toContain(field);
    }
  });
});
