import { createHash, randomUUID } from 'node:crypto';
import os from 'node:os';
import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { Static } from 'typebox';
import type { SecretBox } from '../../crypto/secrets.ts';
import type { Db } from '../../db/database.ts';
import type { AlertCheckRow, AlertRecipientRow, AlertRow } from '../../db/schema.ts';
import { DomainError } from '../../errors/domain-errors.ts';
import { DeliveryError } from '../notifications/delivery-error.ts';
import { catchUpFireTime, nextFireTimes } from '../notifications/schedule-times.ts';
import { alertMail } from './mail.ts';
import type { MeasureReader, Reading } from './measure.ts';
import type { AlertMailer, AlertUsers, AlertViewers, AlertWebhooks } from './ports.ts';
import type { AlertsRepository, SendOutcome } from './repository.ts';
import type { AlertCondition, AlertQuery } from './schemas.ts';
import { alertWebhookBody } from './webhook.ts';

export interface CheckerOptions {
  intervalMs: number;
  /** How long a claimed check is this replica's before another may take it over. */
  leaseMs: number;
  /** Claims per check before it is left failed. */
  maxAttempts: number;
  /** Sends of one crossing's delivery before it is left failed (the notifications' bound). */
  deliveryAttempts: number;
  /** First retry delay of a delivery; each further attempt doubles it, up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
}

export const defaultCheckerOptions: CheckerOptions = {
  intervalMs: 15_000,
  leaseMs: 5 * 60_000,
  maxAttempts: 3,
  deliveryAttempts: 5,
  backoffMs: 30_000,
  maxBackoffMs: 30 * 60_000,
};

export interface CheckerDeps {
  db: Db;
  alerts: AlertsRepository;
  users: AlertUsers;
  viewers: AlertViewers;
  measures: MeasureReader;
  mailer: AlertMailer;
  webhooks: AlertWebhooks;
  /** Opens webhook secrets, sealed at rest. */
  secrets: Pick<SecretBox, 'open'>;
  publicUrl: () => string;
}

const planBatch = 200;

/**
 * Checks alerts on their schedules, in every replica (DESIGN.md "One process, many replicas"),
 * with the notifications' pattern: a pass plans one check per due (alert, fire time) under FOR
 * UPDATE SKIP LOCKED (missed fire times caught up once, schedule-times.ts), then claims checks
 * with a lease and runs them. Running a check reads the measure (once as the owner, or once per
 * recipient) and hands each recipient's reading to `AlertsRepository.decide`, whose locked state
 * row makes the false -> true edge, and so the mail, happen once whichever replica gets there
 * first. A fired result is that crossing's one delivery (id `a{alert}:c{check}:{recipient}`, the
 * same on every attempt): a retryable failure (SMTP down, a webhook's 5xx or refused connection)
 * leaves it `retrying` with doubling backoff, and each pass, after its checks, sends the results
 * whose time has come (`redeliver`), a bounded number of times, each attempt logged. A check
 * taken over after a crash skips the recipients it already decided; a send its holder claimed and
 * never recorded is taken over by `redeliver` once that claim's lease passes.
 */
export class AlertChecker {
  readonly options: CheckerOptions;
  readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopping = false;
  private log: FastifyBaseLogger | null = null;

  constructor(
    private readonly deps: CheckerDeps,
    options: Partial<CheckerOptions> = {},
  ) {
    this.options = { ...defaultCheckerOptions, ...options };
  }

  start(log: FastifyBaseLogger): void {
    if (this.timer) return;
    this.log = log;
    this.stopping = false;
    const loop = () => {
      this.running = this.tick()
        .catch((err) => log.warn({ err }, 'alert checker pass failed'))
        .finally(() => {
          this.running = null;
          if (!this.stopping) {
            this.timer = setTimeout(loop, this.options.intervalMs);
            this.timer.unref();
          }
        });
    };
    this.timer = setTimeout(loop, this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    this.deps.mailer.close();
  }

  /** One pass: plan what is due, then run checks until none is left to claim. */
  async tick(now: Date = new Date()): Promise<{ planned: number; checks: number }> {
    const planned = await this.plan(now);
    let checks = 0;
    while (!this.stopping) {
      const lease = new Date(now.getTime() + this.options.leaseMs);
      const check = await this.deps.alerts.claim(now, lease, this.owner, this.options.maxAttempts);
      if (!check) break;
      checks++;
      await this.run(check, now);
    }
    if (!this.stopping) await this.redeliver(now);
    return { planned, checks };
  }

  /** Sends again the fired results whose retry is due, or whose sender died mid-send. */
  async redeliver(now: Date): Promise<number> {
    await this.deps.alerts.abandonInterrupted(now, this.options.deliveryAttempts);
    let sent = 0;
    while (!this.stopping) {
      const lease = new Date(now.getTime() + this.options.leaseMs);
      const result = await this.deps.alerts.claimRedelivery(now, lease, this.options.deliveryAttempts);
      if (!result) break;
      sent++;
      const check = await this.deps.alerts.check(result.check_id);
      const alert = check ? await this.deps.alerts.byId(check.alert_id) : undefined;
      if (!check || !alert) continue; // deleted meanwhile: its results went with it
      const recipient = (await this.deps.alerts.recipients([alert.id])).find(
        (r) => r.recipient_key === result.recipient_key,
      );
      const reading = { value: result.value, previousValue: result.previous_value };
      if (recipient) await this.send(alert, check, recipient, result.address, reading, result.attempts, now);
      else
        await this.deps.alerts.recordSend(
          check.id,
          result.recipient_key,
          result.attempts,
          { error: 'The recipient was removed before delivery', retryAt: null },
          new Date(),
        );
    }
    return sent;
  }

  async plan(now: Date): Promise<number> {
    let planned = 0;
    for (;;) {
      const count = await this.deps.db.transaction().execute(async (trx) => {
        const due = await this.deps.alerts.due(now, planBatch, trx);
        const plans = due.map((a) => {
          const schedule = { cronExpression: a.cron_expression, timezone: a.timezone };
          const fireTime = catchUpFireTime(schedule, a.last_fire_at, now);
          const [next] = nextFireTimes(schedule, now, 1);
          return { id: a.id, fireTime, lastFireAt: fireTime ?? a.last_fire_at, nextFireAt: next ?? null };
        });
        planned += await this.deps.alerts.insertChecks(
          plans.flatMap((p) => (p.fireTime ? [{ alertId: p.id, fireTime: p.fireTime }] : [])),
          trx,
        );
        await this.deps.alerts.advance(plans, trx);
        return due.length;
      });
      if (count < planBatch) return planned;
    }
  }

  /** A check asked for through the API: claimed by this caller from the start and run now. */
  async checkNow(alertId: number, now: Date): Promise<AlertCheckRow> {
    const lease = new Date(now.getTime() + this.options.leaseMs);
    const check = await this.deps.alerts.insertManualCheck(alertId, this.owner, lease);
    await this.run(check, now);
    return (await this.deps.alerts.check(check.id)) ?? check;
  }

  private async run(check: AlertCheckRow, now: Date): Promise<void> {
    const alert = await this.deps.alerts.byId(check.alert_id);
    if (!alert) return; // deleted meanwhile: its checks went with it
    const [recipients, decided] = await Promise.all([
      this.deps.alerts.recipients([alert.id]),
      this.deps.alerts.results([check.id]),
    ]);
    const done = new Map(decided.map((r) => [r.recipient_key, r]));
    const errors: string[] = [];
    let ownerReading: Promise<Reading> | null = null;
    const lease = new Date(now.getTime() + this.options.leaseMs);
    for (const r of recipients) {
      // Decided by the check's earlier holder: a send it claimed and never recorded is redeliver's.
      if (done.has(r.recipient_key)) continue;
      const address = await this.addressOf(alert, r);
      let reading: Reading | null = null;
      let error: string | null = null;
      try {
        if (alert.security_context === 'owner') {
          ownerReading ??= this.read(alert, alert.owner_id);
          reading = await ownerReading;
        } else reading = await this.read(alert, r.user_id);
      } catch (e) {
        error = this.describe(e, alert);
        errors.push(error);
      }
      const result = {
        recipientKey: r.recipient_key,
        address,
        value: reading?.value ?? null,
        previousValue: reading?.previousValue ?? null,
        conditionMet: reading?.conditionMet ?? null,
        error,
      };
      const fire = await this.deps.alerts.decide(alert.id, check.id, result, lease);
      if (fire) await this.send(alert, check, r, address, result, 1, now);
    }
    const failed = recipients.length > 0 && errors.length === recipients.length;
    await this.deps.alerts.finish(
      check.id,
      failed ? 'failed' : 'done',
      recipients.length === 0 ? 'The alert has no recipients' : (errors[0] ?? null),
      new Date(),
    );
  }

  private async read(alert: AlertRow, userId: number | null): Promise<Reading> {
    if (userId === null)
      throw new DomainError(
        'validation_failed',
        'The user who created the alert was deleted: there is no security context to read the measure under',
      );
    const viewer = await this.deps.viewers.user(alert.tenant_id, userId);
    return this.deps.measures.read(
      viewer,
      alert.deployment_id,
      alert.query as Static<typeof AlertQuery>,
      alert.condition as Static<typeof AlertCondition>,
    );
  }

  private async addressOf(alert: AlertRow, r: AlertRecipientRow): Promise<string | null> {
    if (r.webhook_url !== null) return r.webhook_url;
    if (r.user_id === null) return r.email;
    return (await this.deps.users.find(alert.tenant_id, r.user_id))?.email ?? null;
  }

  /**
   * One attempt at a fired result's delivery, by its recipient's channel, recorded with its
   * outcome; a retryable failure below the bound is given its retry time.
   */
  private async send(
    alert: AlertRow,
    check: AlertCheckRow,
    r: AlertRecipientRow,
    address: string | null,
    reading: { value: number | null; previousValue: number | null },
    attempt: number,
    now: Date,
  ): Promise<void> {
    const at = {
      deliveryId: deliveryIdOf(alert.id, check.id, r.recipient_key),
      checkId: check.id,
      checkedAt: check.fire_time ?? check.created_at,
      publicUrl: this.deps.publicUrl(),
    };
    let outcome: SendOutcome;
    try {
      if (r.webhook_url !== null) {
        if (r.webhook_secret_sealed === null)
          throw new DeliveryError('The webhook has no signing secret', false);
        await this.deps.webhooks.post(
          { url: r.webhook_url, secret: this.deps.secrets.open(r.webhook_secret_sealed) },
          at.deliveryId,
          alertWebhookBody(alert, reading, at),
        );
      } else {
        if (address === null) throw new DeliveryError('The recipient has no email address', false);
        await this.deps.mailer.send({ address, name: null }, alertMail(alert, reading, at));
      }
      outcome = { sentAt: new Date() };
    } catch (error) {
      const known = error instanceof DeliveryError;
      if (!known) this.log?.error({ err: error, alertId: alert.id }, 'alert delivery failed');
      const retryable = !known || error.retryable;
      outcome = {
        error: known ? error.message : 'The alert could not be delivered',
        retryAt:
          retryable && attempt < this.options.deliveryAttempts
            ? new Date(now.getTime() + this.backoff(attempt))
            : null,
      };
    }
    await this.deps.alerts.recordSend(check.id, r.recipient_key, attempt, outcome, new Date());
  }

  private backoff(attempt: number): number {
    return Math.min(this.options.maxBackoffMs, this.options.backoffMs * 2 ** Math.max(0, attempt - 1));
  }

  /** The run log says what went wrong in words a user can act on; the cause goes to the server's log. */
  private describe(error: unknown, alert: AlertRow): string {
    if (error instanceof DomainError) return error.message;
    this.log?.error({ err: error, alertId: alert.id }, 'alert measure read failed');
    return 'The measure could not be read';
  }
}

/**
 * The delivery's stable id, the same on every attempt (the mail's Message-ID hash, the webhook's
 * `Tessera-Delivery`). A webhook is named by its URL's hash: a header carries only ASCII, and a
 * URL may carry a token in its path.
 */
export function deliveryIdOf(alertId: number, checkId: number, recipientKey: string): string {
  const key = recipientKey.startsWith('webhook:')
    ? `webhook:${createHash('sha256').update(recipientKey).digest('hex').slice(0, 16)}`
    : recipientKey;
  return `a${alertId}:c${checkId}:${key}`;
}

/** Starts the checker when the application is ready and stops it when it closes. */
export const alertCheckerPlugin: FastifyPluginAsync<{ checker: AlertChecker; disabled: boolean }> = async (
  app,
  { checker, disabled },
) => {
  if (!disabled) app.addHook('onReady', async () => checker.start(app.log));
  app.addHook('onClose', () => checker.stop());
};
