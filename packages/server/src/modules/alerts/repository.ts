import { type Insertable, type SelectQueryBuilder, sql, type Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type {
  AlertCheckResultRow,
  AlertCheckRow,
  AlertDeliveryAttemptRow,
  AlertRecipientRow,
  AlertRow,
  AlertsTable,
  Database,
} from '../../db/schema.ts';
import { cursorId, type PageWindow } from '../../pagination/page.ts';

/** What one check decided for one recipient, recorded with the state change in one transaction. */
export interface ResultInput {
  recipientKey: string;
  address: string | null;
  value: number | null;
  previousValue: number | null;
  /** null: the value could not be read; the state is left as it was. */
  conditionMet: boolean | null;
  error: string | null;
}

/** A send's outcome: sent, or failed with when to try again (null: never). */
export type SendOutcome = { sentAt: Date } | { error: string; retryAt: Date | null };

/**
 * The alerts' store: plain Kysely, no rules (those are service.ts and checker.ts). The statements
 * that decide who does what across replicas are `due`/`insertChecks` (one check per fire time),
 * `claim` (a lease, SKIP LOCKED) and `decide` (the per-recipient state row, locked).
 */
export class AlertsRepository {
  constructor(private readonly db: Db) {}

  insert(row: Insertable<AlertsTable>, trx: Db): Promise<AlertRow> {
    return trx.insertInto('alerts').values(row).returningAll().executeTakeFirstOrThrow();
  }

  update(id: number, row: Updateable<AlertsTable>, trx: Db): Promise<AlertRow | undefined> {
    return trx
      .updateTable('alerts')
      .set({ ...row, updated_at: new Date() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async delete(id: number, trx: Db): Promise<void> {
    await trx.deleteFrom('alerts').where('id', '=', id).execute();
  }

  find(deploymentId: number, id: number, db: Db = this.db): Promise<AlertRow | undefined> {
    return db
      .selectFrom('alerts')
      .selectAll()
      .where('deployment_id', '=', deploymentId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  byId(id: number): Promise<AlertRow | undefined> {
    return this.db.selectFrom('alerts').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Newest first; the cursor is the last id of the page. */
  list(deploymentId: number, window: PageWindow): Promise<AlertRow[]> {
    const query = this.db.selectFrom('alerts').selectAll().where('deployment_id', '=', deploymentId);
    return newestFirst(query, window).execute();
  }

  recipients(alertIds: number[], db: Db = this.db): Promise<AlertRecipientRow[]> {
    if (alertIds.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('alert_recipients')
      .selectAll()
      .where('alert_id', 'in', alertIds)
      .orderBy('alert_id')
      .orderBy('recipient_key')
      .execute();
  }

  /** Replaces the recipients; the state of those removed goes with them. */
  async setRecipients(alertId: number, rows: Omit<AlertRecipientRow, 'alert_id'>[], trx: Db): Promise<void> {
    await trx.deleteFrom('alert_recipients').where('alert_id', '=', alertId).execute();
    await trx.deleteFrom('alert_states').where('alert_id', '=', alertId).execute();
    if (rows.length > 0)
      await trx
        .insertInto('alert_recipients')
        .values(rows.map((r) => ({ ...r, alert_id: alertId })))
        .execute();
  }

  /** Forgets whether the condition held: after a change of what is watched, the next crossing is new. */
  async resetStates(alertId: number, trx: Db): Promise<void> {
    await trx.deleteFrom('alert_states').where('alert_id', '=', alertId).execute();
  }

  // --- scheduling -----------------------------------------------------------------------------

  due(now: Date, limit: number, trx: Db): Promise<AlertRow[]> {
    return trx
      .selectFrom('alerts')
      .selectAll()
      .where('is_enabled', '=', true)
      .where('next_fire_at', 'is not', null)
      .where('next_fire_at', '<=', now)
      .orderBy('next_fire_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
  }

  /** One check per (alert, fire time): a fire time already planned adds nothing. */
  async insertChecks(checks: { alertId: number; fireTime: Date }[], trx: Db): Promise<number> {
    if (checks.length === 0) return 0;
    const rows = await trx
      .insertInto('alert_checks')
      .values(
        checks.map((c) => ({
          alert_id: c.alertId,
          fire_time: c.fireTime,
          trigger: 'schedule',
          state: 'pending',
        })),
      )
      .onConflict((oc) => oc.columns(['alert_id', 'fire_time']).doNothing())
      .returning('id')
      .execute();
    return rows.length;
  }

  async advance(plans: { id: number; lastFireAt: Date; nextFireAt: Date | null }[], trx: Db): Promise<void> {
    if (plans.length === 0) return;
    const values = sql.join(
      plans.map((p) => sql`(${p.id}::integer, ${p.lastFireAt}::timestamptz, ${p.nextFireAt}::timestamptz)`),
    );
    await sql`update alerts as a set last_fire_at = v.last_fire_at, next_fire_at = v.next_fire_at
      from (values ${values}) as v(id, last_fire_at, next_fire_at) where a.id = v.id`.execute(trx);
  }

  /** A check asked for now (POST .../check): claimed by its caller from the start. */
  insertManualCheck(alertId: number, owner: string, leaseUntil: Date): Promise<AlertCheckRow> {
    return this.db
      .insertInto('alert_checks')
      .values({
        alert_id: alertId,
        fire_time: null,
        trigger: 'manual',
        state: 'running',
        attempts: 1,
        lease_until: leaseUntil,
        claimed_by: owner,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /**
   * Claims one check: a pending one, or a running one whose lease passed (its replica died). The
   * inner SELECT locks with SKIP LOCKED, so two replicas claiming at once take different checks.
   */
  async claim(
    now: Date,
    leaseUntil: Date,
    owner: string,
    maxAttempts: number,
  ): Promise<AlertCheckRow | undefined> {
    return this.db
      .updateTable('alert_checks')
      .set({ state: 'running', attempts: sql`attempts + 1`, lease_until: leaseUntil, claimed_by: owner })
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('alert_checks')
          .select('id')
          .where((w) =>
            w.or([
              w('state', '=', 'pending'),
              w.and([w('state', '=', 'running'), w('lease_until', '<', now)]),
            ]),
          )
          .where('attempts', '<', maxAttempts)
          .orderBy('id')
          .limit(1)
          .forUpdate()
          .skipLocked(),
      )
      .returningAll()
      .executeTakeFirst();
  }

  async finish(checkId: number, state: 'done' | 'failed', error: string | null, now: Date): Promise<void> {
    await this.db
      .updateTable('alert_checks')
      .set({ state, error, finished_at: now, lease_until: null })
      .where('id', '=', checkId)
      .execute();
  }

  // --- state and results -----------------------------------------------------------------------

  results(checkIds: number[]): Promise<AlertCheckResultRow[]> {
    if (checkIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('alert_check_results')
      .selectAll()
      .where('check_id', 'in', checkIds)
      .orderBy('check_id')
      .orderBy('recipient_key')
      .execute();
  }

  /**
   * Records one recipient's result of a check and decides whether it fires, in one transaction:
   * the state row is locked (FOR UPDATE) so that a second check of the same alert at the same
   * moment, on any replica, waits and then reads the state this one wrote. It fires only on the
   * false -> true edge. A result already recorded for this check (a check taken over after a
   * crash) is left alone and answers `null`. Answers whether to send; a fired result is recorded
   * as its first send, claimed by this caller until `leaseUntil`.
   */
  decide(alertId: number, checkId: number, r: ResultInput, leaseUntil: Date): Promise<boolean | null> {
    return this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('alert_states')
        .values({ alert_id: alertId, recipient_key: r.recipientKey })
        .onConflict((oc) => oc.columns(['alert_id', 'recipient_key']).doNothing())
        .execute();
      const state = await trx
        .selectFrom('alert_states')
        .select('condition_met')
        .where('alert_id', '=', alertId)
        .where('recipient_key', '=', r.recipientKey)
        .forUpdate()
        .executeTakeFirstOrThrow();
      const fire = r.conditionMet === true && !state.condition_met;
      const inserted = await trx
        .insertInto('alert_check_results')
        .values({
          check_id: checkId,
          recipient_key: r.recipientKey,
          address: r.address,
          value: r.value,
          previous_value: r.previousValue,
          condition_met: r.conditionMet,
          fired: fire,
          delivery: fire ? 'sending' : 'none',
          error: r.error,
          attempts: fire ? 1 : 0,
          lease_until: fire ? leaseUntil : null,
        })
        .onConflict((oc) => oc.columns(['check_id', 'recipient_key']).doNothing())
        .returning('check_id')
        .executeTakeFirst();
      if (!inserted) return null;
      if (r.conditionMet !== null && r.conditionMet !== state.condition_met)
        await trx
          .updateTable('alert_states')
          .set({ condition_met: r.conditionMet, changed_at: new Date() })
          .where('alert_id', '=', alertId)
          .where('recipient_key', '=', r.recipientKey)
          .execute();
      return fire;
    });
  }

  /**
   * Records a send of a fired result and its log entry, in one transaction. Only the claim that
   * made this attempt writes (`delivery` still `sending` at this attempt): a sender whose lease
   * passed and whose result was taken over records nothing over its successor's.
   */
  async recordSend(
    checkId: number,
    recipientKey: string,
    attempt: number,
    outcome: SendOutcome,
    at: Date,
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const sent = 'sentAt' in outcome;
      const updated = await trx
        .updateTable('alert_check_results')
        .set(
          sent
            ? {
                delivery: 'sent',
                sent_at: outcome.sentAt,
                error: null,
                next_attempt_at: null,
                lease_until: null,
              }
            : {
                delivery: outcome.retryAt === null ? 'failed' : 'retrying',
                error: outcome.error,
                next_attempt_at: outcome.retryAt,
                lease_until: null,
              },
        )
        .where('check_id', '=', checkId)
        .where('recipient_key', '=', recipientKey)
        .where('delivery', '=', 'sending')
        .where('attempts', '=', attempt)
        .returning('check_id')
        .executeTakeFirst();
      if (!updated) return;
      await trx
        .insertInto('alert_delivery_attempts')
        .values({
          check_id: checkId,
          recipient_key: recipientKey,
          attempt,
          attempted_at: at,
          outcome: sent ? 'sent' : 'failed',
          error: sent ? null : outcome.error,
          retry_at: sent ? null : outcome.retryAt,
        })
        .onConflict((oc) => oc.columns(['check_id', 'recipient_key', 'attempt']).doNothing())
        .execute();
    });
  }

  /**
   * Claims one fired result to send again: one waiting for its retry time, or one whose sender's
   * lease passed (its replica died mid-send). SKIP LOCKED, so replicas take different ones; the
   * claim counts the attempt.
   */
  claimRedelivery(
    now: Date,
    leaseUntil: Date,
    maxAttempts: number,
  ): Promise<AlertCheckResultRow | undefined> {
    return this.db
      .updateTable('alert_check_results')
      .set({ delivery: 'sending', attempts: sql`attempts + 1`, lease_until: leaseUntil })
      .where(
        sql<boolean>`(check_id, recipient_key)`,
        'in',
        this.db
          .selectFrom('alert_check_results')
          .select(['check_id', 'recipient_key'])
          .where((w) =>
            w.or([
              w.and([w('delivery', '=', 'retrying'), w('next_attempt_at', '<=', now)]),
              w.and([
                w('delivery', '=', 'sending'),
                w.or([w('lease_until', 'is', null), w('lease_until', '<', now)]),
              ]),
            ]),
          )
          .where('attempts', '<', maxAttempts)
          .orderBy('next_attempt_at')
          .limit(1)
          .forUpdate()
          .skipLocked() as never,
      )
      .returningAll()
      .executeTakeFirst();
  }

  /** Sends interrupted at their last allowed attempt are given up, with the reason in the log. */
  async abandonInterrupted(now: Date, maxAttempts: number): Promise<void> {
    await this.db
      .updateTable('alert_check_results')
      .set({
        delivery: 'failed',
        error: 'The delivery was interrupted at its last attempt',
        lease_until: null,
      })
      .where('delivery', '=', 'sending')
      .where((w) => w.or([w('lease_until', 'is', null), w('lease_until', '<', now)]))
      .where('attempts', '>=', maxAttempts)
      .execute();
  }

  attempts(checkIds: number[]): Promise<AlertDeliveryAttemptRow[]> {
    if (checkIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('alert_delivery_attempts')
      .selectAll()
      .where('check_id', 'in', checkIds)
      .orderBy('check_id')
      .orderBy('recipient_key')
      .orderBy('attempt')
      .execute();
  }

  /** The run log, newest first. */
  checks(alertId: number, window: PageWindow): Promise<AlertCheckRow[]> {
    return newestFirst(
      this.db.selectFrom('alert_checks').selectAll().where('alert_id', '=', alertId),
      window,
    ).execute();
  }

  check(id: number): Promise<AlertCheckRow | undefined> {
    return this.db.selectFrom('alert_checks').selectAll().where('id', '=', id).executeTakeFirst();
  }
}

/** A page of rows by id descending: keyset below the cursor's id, or offset; one row extra. */
function newestFirst<Q extends SelectQueryBuilder<Database, 'alerts' | 'alert_checks', { id: number }>>(
  query: Q,
  window: PageWindow,
): Q {
  const ordered = query.orderBy('id', 'desc').limit(window.size + 1) as Q;
  if (window.mode === 'offset') return ordered.offset(window.offset) as Q;
  return window.after ? (ordered.where('id', '<', cursorId(window.after)) as Q) : ordered;
}
