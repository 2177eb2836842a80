import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Replica, startReplica, startTestServer, type TestServer } from '../../../test/harness.ts';
import { nextFireTimes } from './schedule-times.ts';
import { notificationsApi, publishNotificationBoard, startMailbox } from './test-support.ts';

/**
 * The scheduler's clock across DST changes (issue: "next fire times in the notification's
 * timezone, right across DST changes", a spring-forward and a fall-back day in two time zones),
 * and two replicas on one PostgreSQL delivering each due notification exactly once.
 */
describe('scheduler across DST changes', () => {
  let server: TestServer;
  let board: Awaited<ReturnType<typeof publishNotificationBoard>>;
  let api: ReturnType<typeof notificationsApi>;

  beforeAll(async () => {
    server = await startTestServer();
    board = await publishNotificationBoard(server);
    api = notificationsApi(server);
  });
  afterAll(() => server?.close());
  afterEach(async () => {
    await sql`update notifications set is_enabled = false, next_fire_at = null`.execute(server.store.db);
  });

  /**
   * Creates the notification as if at `from`, ticks every quarter of an hour until `to` (a pass
   * as the interval timer would make them), and answers the fire times the runs were planned for.
   */
  async function firesBetween(body: Record<string, unknown>, from: string, to: string): Promise<string[]> {
    const n = await api.create({ dashboardId: board.dashboardId, ...body });
    const start = new Date(from);
    const [next] = nextFireTimes({ cronExpression: n.cronExpression, timezone: n.timezone }, start, 1);
    await server.store.db
      .updateTable('notifications')
      .set({ last_fire_at: start, next_fire_at: next })
      .where('id', '=', n.id)
      .execute();
    for (let t = start.getTime(); t <= new Date(to).getTime(); t += 15 * 60_000)
      await server.services.notifications.scheduler.tick(new Date(t));
    const runs = await server.store.db
      .selectFrom('notification_runs')
      .select(['fire_time', 'state'])
      .where('notification_id', '=', n.id)
      .orderBy('fire_time')
      .execute();
    // No recipients: each run settles at once, recorded as sending nothing.
    expect(new Set(runs.map((r) => r.state))).toEqual(new Set(['succeeded']));
    return runs.map((r) => r.fire_time.toISOString());
  }

  it('Europe/Berlin, spring forward: 02:30 daily fires at 03:00 CEST on the day 02:30 does not exist', async () => {
    const fires = await firesBetween(
      { scheduleType: 'DAILY', hour: 2, minute: 30, timezone: 'Europe/Berlin' },
      '2026-03-27T23:00:00Z',
      '2026-03-30T23:00:00Z',
    );
    expect(fires).toEqual([
      '2026-03-28T01:30:00.000Z',
      '2026-03-29T01:00:00.000Z',
      '2026-03-30T00:30:00.000Z',
    ]);
  });

  it('Europe/Berlin, fall back: 02:30 daily fires once, at the first of the two 02:30s', async () => {
    const fires = await firesBetween(
      { scheduleType: 'DAILY', hour: 2, minute: 30, timezone: 'Europe/Berlin' },
      '2026-10-23T22:00:00Z',
      '2026-10-26T23:00:00Z',
    );
    expect(fires).toEqual([
      '2026-10-24T00:30:00.000Z',
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ]);
  });

  it('America/New_York, spring forward: 02:30 daily fires at 03:00 EDT on the day 02:30 does not exist', async () => {
    const fires = await firesBetween(
      { scheduleType: 'DAILY', hour: 2, minute: 30, timezone: 'America/New_York' },
      '2026-03-07T05:00:00Z',
      '2026-03-10T05:00:00Z',
    );
    expect(fires).toEqual([
      '2026-03-07T07:30:00.000Z',
      '2026-03-08T07:00:00.000Z',
      '2026-03-09T06:30:00.000Z',
    ]);
  });

  it('America/New_York, fall back: 01:30 daily fires once; an hourly schedule fires on both passes of 01:30', async () => {
    const daily = await firesBetween(
      { scheduleType: 'DAILY', hour: 1, minute: 30, timezone: 'America/New_York' },
      '2026-10-31T04:00:00Z',
      '2026-11-02T12:00:00Z',
    );
    expect(daily).toEqual([
      '2026-10-31T05:30:00.000Z',
      '2026-11-01T05:30:00.000Z',
      '2026-11-02T06:30:00.000Z',
    ]);
    const hourly = await firesBetween(
      { scheduleType: 'HOURLY', minute: 30, timezone: 'America/New_York' },
      '2026-11-01T04:00:00Z',
      '2026-11-01T09:00:00Z',
    );
    // 00:30 EDT, 01:30 EDT, 01:30 EST, 02:30 EST, 03:30 EST: sixty minutes apart throughout.
    expect(hourly).toEqual([
      '2026-11-01T04:30:00.000Z',
      '2026-11-01T05:30:00.000Z',
      '2026-11-01T06:30:00.000Z',
      '2026-11-01T07:30:00.000Z',
      '2026-11-01T08:30:00.000Z',
    ]);
  });
});

const onPostgres = inject('testDb') === 'postgres';

// Two replicas racing on one store need a store with concurrent connections: PostgreSQL. PGlite
// has one connection, so there the race cannot happen and this test is skipped.
describe.skipIf(!onPostgres)('two replicas on one PostgreSQL', () => {
  let server: TestServer;
  let replica: Replica;
  let mailbox: Awaited<ReturnType<typeof startMailbox>>;

  beforeAll(async () => {
    mailbox = await startMailbox();
    server = await startTestServer({ smtpUrl: mailbox.url });
    replica = await startReplica(server);
  });
  afterAll(async () => {
    await replica?.close();
    await server?.close();
    await mailbox?.close();
  });

  it('deliver 200 due notifications between them, none twice and none missing', async () => {
    const board = await publishNotificationBoard(server);
    const api = notificationsApi(server);
    const count = 200;
    const ids: number[] = [];
    for (let i = 0; i < count; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(20, count - i) }, async (_, j) => {
          const n = await api.create({ scheduleType: 'HOURLY', minute: 0, dashboardId: board.dashboardId });
          await api.addRecipients(n.id, [{ type: 'EMAIL', email: `r${i + j}@example.com` }]);
          return n.id as number;
        }),
      );
      ids.push(...batch);
    }
    const at = new Date(Math.ceil(Date.now() / 3600_000) * 3600_000);
    const schedulers = [server.services.notifications.scheduler, replica.services.notifications.scheduler];
    // Both plan at the same moment: each due notification gets one run, whoever planned it.
    const planned = await Promise.all(schedulers.map((s) => s.plan(at)));
    expect(planned[0] + planned[1]).toBe(count);
    // Both work at the same moment: runs are split between them, each run taken by one.
    const [a, b] = await Promise.all(schedulers.map((s) => s.tick(at)));
    expect(a.planned + b.planned).toBe(0);
    expect(a.runs + b.runs).toBe(count);
    expect(a.runs).toBeGreaterThan(0);
    expect(b.runs).toBeGreaterThan(0);
    console.info(`replica split: planned ${planned.join('/')}, ran ${a.runs}/${b.runs}`);
    await mailbox.waitFor(count, 60_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(mailbox.messages).toHaveLength(count);
    const to = mailbox.envelopes.map((e) => e[0]).sort();
    expect(new Set(to).size).toBe(count);
    expect(to).toEqual(Array.from({ length: count }, (_, i) => `r${i}@example.com`).sort());
    const deliveryIds = mailbox.messages.map((m) => m.headers.get('x-tessera-delivery'));
    expect(new Set(deliveryIds).size).toBe(count);
    const runs = await server.store.db
      .selectFrom('notification_runs')
      .select(['notification_id', 'state', 'attempts'])
      .where('notification_id', 'in', ids)
      .execute();
    expect(runs).toHaveLength(count);
    expect(runs.every((r) => r.state === 'succeeded' && r.attempts === 1)).toBe(true);
    // A second round of passes at the same moment finds nothing to do.
    const again = await Promise.all([
      server.services.notifications.scheduler.tick(at),
      replica.services.notifications.scheduler.tick(at),
    ]);
    expect(again.map((r) => r.planned + r.runs)).toEqual([0, 0]);
  });
});
