import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Replica, startReplica, startTestServer, type TestServer } from '../../../test/harness.ts';
import type { NotificationScheduler } from './scheduler.ts';
import { notificationsApi, publishNotificationBoard, startMailbox } from './test-support.ts';

/**
 * Sends claimed without a statement of their own (scheduler.ts: the first send of a run is claimed
 * by the statement that plans the run's deliveries, each further one by the statement that records
 * the send before it), with DESIGN.md's guarantee kept ("Each delivery is keyed by (notification,
 * fire time, recipient) so that a retry or a second replica never sends twice"): four schedulers
 * race over 50 due notifications of two recipients each, ten of whose runs a replica claimed and
 * then died with, some after recording a send. On PostgreSQL the four race on separate
 * connections; on PGlite their statements interleave on its one connection.
 */
const onPostgres = inject('testDb') === 'postgres';

describe('four schedulers racing over due notifications, with a crashed replica', () => {
  let server: TestServer;
  let replicas: Replica[] = [];
  let mailbox: Awaited<ReturnType<typeof startMailbox>>;

  beforeAll(async () => {
    mailbox = await startMailbox();
    server = await startTestServer({ smtpUrl: mailbox.url });
    replicas = await Promise.all([0, 1, 2].map(() => startReplica(server)));
  });
  afterAll(async () => {
    for (const r of replicas) await r.close();
    await server?.close();
    await mailbox?.close();
  });

  it('sends every mail once, takes over the dead replica’s runs once their lease passes, and never resends what it recorded as sent', {
    timeout: 300_000,
  }, async () => {
    const board = await publishNotificationBoard(server);
    const api = notificationsApi(server);
    const count = 50;
    const ids: number[] = [];
    for (let i = 0; i < count; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: 10 }, async (_, j) => {
          const n = await api.create({ scheduleType: 'HOURLY', minute: 0, dashboardId: board.dashboardId });
          await api.addRecipients(n.id, [
            { type: 'EMAIL', email: `a${i + j}@example.com` },
            { type: 'EMAIL', email: `b${i + j}@example.com` },
          ]);
          return n.id as number;
        }),
      );
      ids.push(...batch);
    }
    const at = new Date(Math.ceil(Date.now() / 3600_000) * 3600_000);
    const schedulers: NotificationScheduler[] = [
      server.services.notifications.scheduler,
      ...replicas.map((r) => r.services.notifications.scheduler),
    ];
    const runs = server.services.notifications.runsRepository;
    const leaseMs = schedulers[0].options.leaseMs;

    expect((await Promise.all(schedulers.map((s) => s.plan(at)))).reduce((a, b) => a + b)).toBe(count);

    // The dead replica: it claimed ten runs and planned their deliveries as the scheduler does,
    // the first send claimed; in five runs it recorded that send and claimed the second, then died.
    const dead = await runs.claim(at, new Date(at.getTime() + leaseMs), 'dead-replica', 10);
    expect(dead).toHaveLength(10);
    const recordedByDead: string[] = [];
    for (const [i, run] of dead.entries()) {
      const recipients = await server.store.db
        .selectFrom('notification_recipients')
        .select(['id', 'recipient_key', 'email'])
        .where('notification_id', '=', run.notification_id)
        .orderBy('email')
        .execute();
      const lease = new Date(at.getTime() + leaseMs);
      await runs.planDeliveries(
        recipients.map((r, k) => ({
          run_id: run.id,
          recipient_key: r.recipient_key,
          recipient_id: r.id,
          type: 'EMAIL' as const,
          address: r.email as string,
          next_attempt_at: at,
          ...(k === 0 ? { state: 'sending' as const, attempts: 1, lease_until: lease } : {}),
        })),
      );
      if (i < 5) {
        const next = { key: recipients[1].recipient_key, now: at, leaseUntil: lease };
        expect(await runs.recordAndClaimNext(run.id, recipients[0].recipient_key, { sentAt: at }, next)).toBe(
          true,
        );
        recordedByDead.push(recipients[0].email as string);
      }
    }
    const deadIds = new Set(dead.map((r) => r.notification_id));
    const addresses = (notificationIds: number[]) =>
      notificationIds.flatMap((id) => {
        const i = ids.indexOf(id);
        return [`a${i}@example.com`, `b${i}@example.com`];
      });

    // The four race: the forty runs no one holds are sent, each mail once; the dead replica's wait.
    const first = await Promise.all(schedulers.map((s) => s.tick(at)));
    expect(first.reduce((n, r) => n + r.runs, 0)).toBe(count - 10);
    // Separate connections let more than one take runs; PGlite's one may serve one pass first.
    if (onPostgres) expect(first.filter((r) => r.runs > 0).length).toBeGreaterThan(1);
    const live = addresses(ids.filter((id) => !deadIds.has(id)));
    await mailbox.waitFor(live.length, 60_000);
    expect(mailbox.envelopes.flat().sort()).toEqual([...live].sort());

    // Once the dead replica's lease has passed, they race again: its runs are taken over once,
    // and only what it had not recorded as sent goes out.
    const later = new Date(at.getTime() + leaseMs + 1000);
    const second = await Promise.all(schedulers.map((s) => s.tick(later)));
    expect(second.reduce((n, r) => n + r.runs, 0)).toBe(10);
    const expected = [...live, ...addresses([...deadIds]).filter((a) => !recordedByDead.includes(a))];
    await mailbox.waitFor(expected.length, 60_000);
    // Nothing more arrives from a pass that found nothing, nor from a late duplicate.
    expect((await Promise.all(schedulers.map((s) => s.tick(later)))).map((r) => r.runs)).toEqual([
      0, 0, 0, 0,
    ]);
    expect(mailbox.envelopes.flat().sort()).toEqual([...expected].sort());
    const deliveryIds = mailbox.messages.map((m) => m.headers.get('x-tessera-delivery'));
    expect(new Set(deliveryIds).size).toBe(expected.length);

    const log = await server.store.db
      .selectFrom('notification_runs as r')
      .innerJoin('notification_deliveries as d', 'd.run_id', 'r.id')
      .select([
        'r.notification_id',
        'r.state as run',
        'r.attempts as runAttempts',
        'd.address',
        'd.state',
        'd.attempts',
      ])
      .where('r.notification_id', 'in', ids)
      .execute();
    expect(log).toHaveLength(2 * count);
    expect(log.every((d) => d.run === 'succeeded' && d.state === 'sent')).toBe(true);
    for (const d of log) {
      const wasDead = deadIds.has(d.notification_id);
      expect(d.runAttempts, d.address).toBe(wasDead ? 2 : 1);
      // A send the dead replica held claimed is counted twice; one it never reached, once.
      const heldByDead =
        wasDead &&
        (d.address.startsWith('a')
          ? !recordedByDead.includes(d.address)
          : recordedByDead.includes(`a${d.address.slice(1)}`));
      expect(d.attempts, d.address).toBe(heldByDead ? 2 : 1);
    }
  });
});
