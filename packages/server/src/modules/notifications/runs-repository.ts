import { type ExpressionBuilder, type Insertable, type QueryCreator, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type {
  Database,
  NotificationDeliveriesTable,
  NotificationDeliveryRow,
  NotificationRow,
  NotificationRunRow,
  NotificationRunState,
} from '../../db/schema.ts';
import { cursorId, type PageWindow } from '../../pagination/page.ts';

/** How a send ended: sent, or failed and retried at `retryAt` (null: failed for good). */
export type SendOutcome = { sentAt: Date } | { error: string; retryAt: Date | null };

/**
 * The scheduler's store (DESIGN.md "One process, many replicas"): every replica plans and claims
 * through these statements, and the row locks and unique keys decide who does what, so no leader
 * is needed and nothing runs twice. Plain Kysely; the rules are scheduler.ts.
 */
export class RunsRepository {
  constructor(private readonly db: Db) {}

  /** Due notifications, locked for this transaction; rows another replica holds are skipped. */
  due(now: Date, limit: number, trx: Db): Promise<NotificationRow[]> {
    return trx
      .selectFrom('notifications')
      .selectAll()
      .where('is_enabled', '=', true)
      .where('notification_enabled', '=', true)
      .where('next_fire_at', 'is not', null)
      .where('next_fire_at', '<=', now)
      .orderBy('next_fire_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
  }

  /**
   * One run per (notification, fire time): inserting a fire time that has a run is a no-op, so a
   * second planner adds nothing. Answers how many runs were new.
   */
  async insertRuns(runs: { notificationId: number; fireTime: Date }[], now: Date, trx: Db): Promise<number> {
    if (runs.length === 0) return 0;
    const rows = await trx
      .insertInto('notification_runs')
      .values(
        runs.map((r) => ({ notification_id: r.notificationId, fire_time: r.fireTime, next_attempt_at: now })),
      )
      .onConflict((oc) => oc.columns(['notification_id', 'fire_time']).doNothing())
      .returning('id')
      .execute();
    return rows.length;
  }

  /** Moves each notification to its next fire time, in one statement. */
  async advance(plans: { id: number; lastFireAt: Date; nextFireAt: Date | null }[], trx: Db): Promise<void> {
    if (plans.length === 0) return;
    const values = sql.join(
      plans.map((p) => sql`(${p.id}::integer, ${p.lastFireAt}::timestamptz, ${p.nextFireAt}::timestamptz)`),
    );
    await sql`update notifications as n set last_fire_at = v.last_fire_at, next_fire_at = v.next_fire_at
      from (values ${values}) as v(id, last_fire_at, next_fire_at) where n.id = v.id`.execute(trx);
  }

  /**
   * Claims up to `limit` runs: pending ones whose attempt is due, and running ones whose lease
   * passed (their replica died or stalled). The inner SELECT locks with SKIP LOCKED, so two
   * replicas claiming at once take different runs.
   */
  claim(now: Date, leaseUntil: Date, owner: string, limit: number): Promise<NotificationRunRow[]> {
    return this.db
      .updateTable('notification_runs')
      .set({
        state: 'running',
        attempts: sql`attempts + 1`,
        lease_until: leaseUntil,
        lease_owner: owner,
        started_at: sql`coalesce(started_at, ${now})`,
      })
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('notification_runs')
          .select('id')
          .where((w) =>
            w.or([
              w.and([w('state', '=', 'pending'), w('next_attempt_at', '<=', now)]),
              w.and([w('state', '=', 'running'), w('lease_until', '<', now)]),
            ]),
          )
          .orderBy('next_attempt_at')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .returningAll()
      .execute();
  }

  /** Keeps a long run's claim; false when another replica took it over meanwhile. */
  async extendLease(runId: number, owner: string, leaseUntil: Date): Promise<boolean> {
    const r = await this.db
      .updateTable('notification_runs')
      .set({ lease_until: leaseUntil })
      .where('id', '=', runId)
      .where('lease_owner', '=', owner)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async finish(
    runId: number,
    owner: string,
    outcome: {
      state: NotificationRunState;
      error: string | null;
      failedWidgets: { id: string; title: string; error: string }[] | null;
      nextAttemptAt: Date | null;
      now: Date;
    },
  ): Promise<void> {
    const open = outcome.state === 'pending';
    await this.db
      .updateTable('notification_runs')
      .set({
        state: outcome.state,
        error: outcome.error,
        failed_widgets: outcome.failedWidgets === null ? null : JSON.stringify(outcome.failedWidgets),
        lease_until: null,
        lease_owner: null,
        ...(open ? { next_attempt_at: outcome.nextAttemptAt ?? outcome.now } : { finished_at: outcome.now }),
      })
      .where('id', '=', runId)
      .where('lease_owner', '=', owner)
      .execute();
  }

  /** The run's deliveries, one per recipient at its first attempt; later attempts keep that list. */
  async planDeliveries(rows: Insertable<NotificationDeliveriesTable>[]): Promise<NotificationDeliveryRow[]> {
    if (rows.length === 0) return [];
    return this.db
      .insertInto('notification_deliveries')
      .values(rows)
      .onConflict((oc) => oc.columns(['run_id', 'recipient_key']).doNothing())
      .returningAll()
      .execute();
  }

  deliveries(runIds: number[]): Promise<NotificationDeliveryRow[]> {
    if (runIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('notification_deliveries')
      .selectAll()
      .where('run_id', 'in', runIds)
      .orderBy('run_id')
      .orderBy('recipient_key')
      .execute();
  }

  /**
   * Claims one send: a pending delivery whose attempt is due, or one left `sending` by a replica
   * that died before recording the outcome. Once `sent`, a delivery is never claimed again.
   */
  async claimDelivery(runId: number, key: string, now: Date, leaseUntil: Date): Promise<boolean> {
    const r = await this.db
      .updateTable('notification_deliveries')
      .set({ state: 'sending', attempts: sql`attempts + 1`, lease_until: leaseUntil })
      .where('run_id', '=', runId)
      .where('recipient_key', '=', key)
      .where((w) => claimable(w, now))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /**
   * Records a send (sent, or failed with a retry time, null for good) and, in the same statement,
   * claims the run's next send as `claimDelivery` would: with the first send claimed when the
   * run's deliveries are planned, each send costs one statement instead of a claim and a record.
   * Answers whether `next` was claimed.
   */
  async recordAndClaimNext(
    runId: number,
    key: string,
    outcome: SendOutcome,
    next: { key: string; now: Date; leaseUntil: Date } | null,
  ): Promise<boolean> {
    const record = (qc: QueryCreator<Database>) => {
      const q = qc
        .updateTable('notification_deliveries')
        .where('run_id', '=', runId)
        .where('recipient_key', '=', key);
      if ('sentAt' in outcome)
        return q.set({ state: 'sent', sent_at: outcome.sentAt, error: null, lease_until: null });
      return q
        .set({
          state: outcome.retryAt === null ? 'failed' : 'pending',
          error: outcome.error,
          lease_until: null,
          ...(outcome.retryAt === null ? {} : { next_attempt_at: outcome.retryAt }),
        })
        .where('state', '<>', 'sent');
    };
    if (next === null) {
      await record(this.db).execute();
      return false;
    }
    // A data-modifying CTE runs to completion whether or not the statement reads it; the two
    // updates touch different rows.
    const claimed = await this.db
      .with('recorded', (qc) => record(qc).returning('recipient_key'))
      .updateTable('notification_deliveries')
      .set({ state: 'sending', attempts: sql`attempts + 1`, lease_until: next.leaseUntil })
      .where('run_id', '=', runId)
      .where('recipient_key', '=', next.key)
      .where((w) => claimable(w, next.now))
      .returning('recipient_key')
      .executeTakeFirst();
    return claimed !== undefined;
  }

  /** Hands back a claim that was never tried (its run stopped or failed to render first). */
  async releaseDeliveries(runId: number, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.db
      .updateTable('notification_deliveries')
      .set({ state: 'pending', attempts: sql`greatest(attempts - 1, 0)`, lease_until: null })
      .where('run_id', '=', runId)
      .where('recipient_key', 'in', keys)
      .where('state', '=', 'sending')
      .execute();
  }

  async delivered(runId: number, key: string, now: Date): Promise<void> {
    await this.recordAndClaimNext(runId, key, { sentAt: now }, null);
  }

  /** A failed attempt: retried at `retryAt`, or failed for good when it is null. */
  async undelivered(runId: number, key: string, error: string, retryAt: Date | null): Promise<void> {
    await this.recordAndClaimNext(runId, key, { error, retryAt }, null);
  }

  /** A whole run given up on: its deliveries not yet sent fail with the run's error. */
  async failOpenDeliveries(runId: number, error: string): Promise<void> {
    await this.db
      .updateTable('notification_deliveries')
      .set({ state: 'failed', error, lease_until: null })
      .where('run_id', '=', runId)
      .where('state', 'in', ['pending', 'sending'])
      .execute();
  }

  /** A run for "now" (the send-now action), unless one exists for that second. */
  async insertRunNow(
    notificationId: number,
    fireTime: Date,
    now: Date,
    db: Db = this.db,
  ): Promise<NotificationRunRow> {
    await db
      .insertInto('notification_runs')
      .values({ notification_id: notificationId, fire_time: fireTime, next_attempt_at: now })
      .onConflict((oc) => oc.columns(['notification_id', 'fire_time']).doNothing())
      .execute();
    return db
      .selectFrom('notification_runs')
      .selectAll()
      .where('notification_id', '=', notificationId)
      .where('fire_time', '=', fireTime)
      .executeTakeFirstOrThrow();
  }

  /** The run log of a notification, newest fire time first. */
  list(notificationId: number, window: PageWindow): Promise<NotificationRunRow[]> {
    let q = this.db
      .selectFrom('notification_runs')
      .selectAll()
      .where('notification_id', '=', notificationId)
      .orderBy('id', 'desc')
      .limit(window.size + 1);
    if (window.mode === 'offset') q = q.offset(window.offset);
    else if (window.after) q = q.where('id', '<', cursorId(window.after));
    return q.execute();
  }

  find(runId: number): Promise<NotificationRunRow | undefined> {
    return this.db.selectFrom('notification_runs').selectAll().where('id', '=', runId).executeTakeFirst();
  }
}

/** A send that may be claimed: due and pending, or `sending` under a lease that passed. */
function claimable(w: ExpressionBuilder<Database, 'notification_deliveries'>, now: Date) {
  return w.or([
    w.and([w('state', '=', 'pending'), w('next_attempt_at', '<=', now)]),
    w.and([w('state', '=', 'sending'), w('lease_until', '<', now)]),
  ]);
}
