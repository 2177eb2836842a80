import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { SecretBox } from '../../crypto/secrets.ts';
import type { Db } from '../../db/database.ts';
import type { NotificationDeliveryRow, NotificationRow, NotificationRunRow } from '../../db/schema.ts';
import { DomainError } from '../../errors/domain-errors.ts';
import { embedSecurityContext } from '../embed/session-rules.ts';
import { type Channels, DeliveryError, type DeliveryMessage } from './channels.ts';
import type { DashboardExportsService } from './exports.ts';
import { emailOf } from './recipients.ts';
import {
  type DashboardRenderer,
  type DrawnDashboard,
  RenderError,
  type RenderedDashboardFile,
  type RenderSubject,
} from './renderer.ts';
import type { NotificationsRepository, RecipientWithNames } from './repository.ts';
import type { RunsRepository, SendOutcome } from './runs-repository.ts';
import { catchUpFireTime, nextFireTimes } from './schedule-times.ts';

export interface SchedulerOptions {
  intervalMs: number;
  /** Runs rendered and delivered at once by this replica. */
  concurrency: number;
  /** How long a claimed run (or send) is this replica's before another may take it over. */
  leaseMs: number;
  /** First retry delay; each further attempt doubles it, up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
  /** Attempts per delivery, and claims per run, before giving up. */
  maxAttempts: number;
}

export const defaultSchedulerOptions: SchedulerOptions = {
  intervalMs: 15_000,
  concurrency: 8,
  leaseMs: 5 * 60_000,
  backoffMs: 30_000,
  maxBackoffMs: 30 * 60_000,
  maxAttempts: 5,
};

export interface SchedulerDeps {
  db: Db;
  runs: RunsRepository;
  notifications: NotificationsRepository;
  renderer: DashboardRenderer;
  channels: Channels;
  secrets: SecretBox;
  /** Where a recipient opens the dashboard: `{publicUrl}/dashboards/{publicId}`. */
  publicUrl: () => string;
  exports?: DashboardExportsService;
}

export interface TickResult {
  planned: number;
  runs: number;
}

type Group<D = NotificationDeliveryRow> = { subject: RenderSubject | null; deliveries: D[] };
/**
 * Sends this worker has claimed and not yet tried, with their attempt count after the claim: the
 * first send of a run is claimed by the statement that plans its deliveries, and each further one
 * by the statement that records the send before it.
 */
type Held = Map<string, number>;
/** What one pass has drawn and made into files, shared by its runs. */
type Renders = {
  drawings: Map<string, Promise<DrawnDashboard>>;
  files: Map<string, Promise<RenderedDashboardFile>>;
};

const planBatch = 200;

/**
 * The notification scheduler (spec 6; DESIGN.md "Notifications and rendering" and "One process,
 * many replicas"). Every replica runs it; each pass (`tick`):
 * 1. plans: due notifications, locked with FOR UPDATE SKIP LOCKED, each get one run for the latest
 *    fire time at or before now (schedule-times.ts: missed fire times are caught up once) and their
 *    next fire time; the run's unique (notification, fire time) makes a second planner a no-op;
 * 2. works: runs are claimed with a lease (SKIP LOCKED again), rendered once per security context,
 *    and delivered recipient by recipient, each send claimed on its own delivery row first: the
 *    first by the statement that plans the run's deliveries, each next one by the statement that
 *    records the send before it, so that a send costs one statement. Only the send about to be
 *    tried is ever claimed: a crash leaves the others pending, with no attempt counted.
 * A replica that dies mid-run leaves a claim whose lease passes: the next pass anywhere takes the
 * run over, and sends only what was not recorded as sent. Failed sends are retried with doubling
 * backoff; a run whose every delivery is settled is finished, with its state and errors kept as
 * the run log.
 */
export class NotificationScheduler {
  readonly options: SchedulerOptions;
  readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopping = false;
  private log: FastifyBaseLogger | null = null;

  constructor(
    private readonly deps: SchedulerDeps,
    options: Partial<SchedulerOptions> = {},
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.options = { ...defaultSchedulerOptions, ...options };
  }

  get started(): boolean {
    return this.timer !== null;
  }

  start(log: FastifyBaseLogger): void {
    if (this.timer) return;
    this.log = log;
    this.stopping = false;
    const loop = () => {
      this.running = this.tick()
        .catch((err) => log.warn({ err }, 'notification scheduler pass failed'))
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

  /** Stops claiming new work and waits for the pass in progress, so that the store can close after it. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    this.deps.channels.close();
  }

  /** One pass: plan what is due, then work until no run is left to claim. */
  async tick(now: Date = this.clock()): Promise<TickResult> {
    const planned = await this.plan(now);
    let runs = 0;
    const renders: Renders = { drawings: new Map(), files: new Map() };
    let failure: unknown = null;
    // `concurrency` workers, each claiming one run at a time until none is left to claim: no run
    // waits for a slower one of its batch.
    const worker = async () => {
      while (!this.stopping && failure === null) {
        const [run] = await this.deps.runs.claim(now, this.after(now, this.options.leaseMs), this.owner, 1);
        if (!run) return;
        runs++;
        try {
          await this.work(run, now, renders);
        } catch (error) {
          // A run that fails on the store keeps its claim until the lease passes, then is retried.
          failure = error;
        }
        // A pass that sends many mails must not hold many rendered files.
        if (renders.files.size > 50) {
          renders.files.clear();
          renders.drawings.clear();
        }
      }
    };
    await Promise.all(Array.from({ length: this.options.concurrency }, worker));
    if (failure !== null) throw failure;
    if (this.deps.exports && !this.stopping) await this.deps.exports.work(now);
    return { planned, runs };
  }

  /** Turns due notifications into runs; answers how many runs were planned. */
  async plan(now: Date): Promise<number> {
    let planned = 0;
    for (;;) {
      const count = await this.deps.db.transaction().execute(async (trx) => {
        const due = await this.deps.runs.due(now, planBatch, trx);
        const plans = due.map((n) => {
          const schedule = { cronExpression: n.cron_expression, timezone: n.timezone };
          const fireTime = catchUpFireTime(schedule, n.last_fire_at, now);
          const [next] = nextFireTimes(schedule, now, 1);
          return { id: n.id, fireTime, lastFireAt: fireTime ?? n.last_fire_at, nextFireAt: next ?? null };
        });
        const runs = plans.flatMap((p) =>
          p.fireTime ? [{ notificationId: p.id, fireTime: p.fireTime }] : [],
        );
        planned += await this.deps.runs.insertRuns(runs, now, trx);
        await this.deps.runs.advance(plans, trx);
        return due.length;
      });
      if (count < planBatch) return planned;
    }
  }

  private async work(run: NotificationRunRow, now: Date, renders: Renders): Promise<void> {
    // Three reads at once: the notification, its recipients now, and what this run already did.
    const [notification, recipientRows, planned] = await Promise.all([
      this.deps.db
        .selectFrom('notifications as n')
        .innerJoin('dashboards as d', 'd.id', 'n.dashboard_id')
        .selectAll('n')
        .select('d.public_id as dashboard_public_id')
        .where('n.id', '=', run.notification_id)
        .executeTakeFirst(),
      this.deps.notifications.allRecipients(run.notification_id),
      // A first claim finds none: deliveries are planned only by a worker holding the run's claim
      // (and planning again is a no-op on the run's unique keys, read back below).
      run.attempts > 1 ? this.deps.runs.deliveries([run.id]) : Promise.resolve([]),
    ]);
    if (!notification) return; // deleted meanwhile: its runs went with it
    const recipients = new Map(recipientRows.map((r) => [r.id, r]));
    const lease = this.after(now, this.options.leaseMs);
    const held: Held = new Map();
    const refused = new Set<string>();
    let deliveries = planned;
    if (deliveries.length === 0 && recipients.size > 0) {
      // The recipients at the first attempt are the run's; later changes apply to later runs.
      const rows = recipientRows.flatMap((r) => {
        const address = addressOf(r);
        if (address === null) return [];
        const d = { run_id: run.id, recipient_key: r.recipient_key, recipient_id: r.id, type: r.type };
        return [{ ...d, address, next_attempt_at: now }];
      });
      // The first send is planned claimed, as `claimDelivery` would claim it; the others stay
      // pending (untried, no attempt counted) until the send before them is recorded.
      const first = groups(notification, rows, recipients)[0]?.deliveries[0];
      const claimedFirst = { state: 'sending', attempts: 1, lease_until: lease } as const;
      const inserted = await this.deps.runs.planDeliveries(
        rows.map((r) => (r === first ? { ...r, ...claimedFirst } : r)),
      );
      // Only rows this statement inserted come back: a claim on one of them is this worker's.
      const mine = inserted.find((d) => d.recipient_key === first?.recipient_key && d.state === 'sending');
      if (mine) held.set(mine.recipient_key, mine.attempts);
      deliveries = inserted;
      if (deliveries.length < rows.length) deliveries = await this.deps.runs.deliveries([run.id]);
    }
    /** What this pass did to each delivery, so that settling needs no second read. */
    const outcome = new Map(deliveries.map((d) => [d.recipient_key, { ...d }]));
    const open = deliveries.filter((d) => d.state === 'pending' || d.state === 'sending');
    let failedWidgets = parseFailed(run.failed_widgets);
    let renderError: string | null = null;
    for (const d of open) {
      // Unsubscribed after the run was planned: not sent, and said so in the log.
      if (d.recipient_id === null || !recipients.has(d.recipient_id)) {
        const error = 'The recipient was removed before delivery';
        await this.deps.runs.undelivered(run.id, d.recipient_key, error, null);
        Object.assign(outcome.get(d.recipient_key) as object, { state: 'failed', error });
      }
    }
    const live = open.filter((d) => d.recipient_id !== null && recipients.has(d.recipient_id));
    const plan = groups(notification, live, recipients);
    const order = plan.flatMap((g) => g.deliveries);
    const following = new Map(order.map((d, i) => [d.recipient_key, order[i + 1]]));
    for (const group of plan) {
      let file: RenderedDashboardFile;
      try {
        if (group.subject === null)
          throw new RenderError(
            'The user who created the notification was deleted: there is no security context to render it under',
          );
        file = await this.render(notification, group.subject, renders);
      } catch (error) {
        renderError = describe(error);
        // The run log says only that rendering failed; the cause goes to the server's log.
        if (!(error instanceof RenderError || error instanceof DomainError))
          this.log?.error({ err: error, notificationId: notification.id }, 'notification render failed');
        continue;
      }
      failedWidgets = mergeFailed(failedWidgets, file.failedWidgets);
      await this.deliver(run, notification, group.deliveries, file, recipients, now, outcome, {
        held,
        refused,
        following,
      });
    }
    // Claims never tried (the render of their group failed, or this replica is stopping) are
    // handed back as they were, so that the next attempt need not wait for their lease.
    if (held.size > 0) {
      await this.deps.runs.releaseDeliveries(run.id, [...held.keys()]);
      for (const key of held.keys()) {
        const record = outcome.get(key);
        if (record?.state === 'sending') Object.assign(record, { state: 'pending', lease_until: null });
      }
    }
    await this.settle(run, renderError, failedWidgets, now, [...outcome.values()]);
  }

  private async render(
    n: NotificationRow & { dashboard_public_id: string },
    subject: RenderSubject,
    renders: Renders,
  ): Promise<RenderedDashboardFile> {
    // Runs of one pass with the same dashboard, inputs and viewer share one drawing (queries,
    // charts, layout, its PNG), and those with the same format too one file.
    const drawingKey = JSON.stringify([
      n.deployment_id,
      n.dashboard_public_id,
      n.filters,
      n.time_grains,
      subject,
    ]);
    const fileKey = JSON.stringify([drawingKey, n.notification_format]);
    let file = renders.files.get(fileKey);
    if (!file) {
      let drawing = renders.drawings.get(drawingKey);
      if (!drawing) {
        drawing = this.deps.renderer.draw({
          tenantId: n.tenant_id,
          deploymentId: n.deployment_id,
          dashboardPublicId: n.dashboard_public_id,
          subject,
          filters: (n.filters as never) ?? null,
          timeGrains: (n.time_grains as never) ?? null,
        });
        renders.drawings.set(drawingKey, drawing);
        drawing.catch(() => renders.drawings.delete(drawingKey));
      }
      file = drawing.then((drawn) => this.deps.renderer.file(drawn, n.notification_format, true));
      renders.files.set(fileKey, file);
      file.catch(() => renders.files.delete(fileKey));
    }
    return file;
  }

  private async deliver(
    run: NotificationRunRow,
    n: NotificationRow & { dashboard_public_id: string },
    deliveries: NotificationDeliveryRow[],
    file: RenderedDashboardFile,
    recipients: Map<number, RecipientWithNames>,
    now: Date,
    outcome: Map<string, NotificationDeliveryRow>,
    claims: {
      held: Held;
      refused: Set<string>;
      following: Map<string, NotificationDeliveryRow | undefined>;
    },
  ): Promise<void> {
    const base = this.deps.publicUrl().replace(/\/+$/, '');
    const lease = this.after(now, this.options.leaseMs);
    for (const d of deliveries) {
      if (this.stopping) return;
      const record = outcome.get(d.recipient_key) as NotificationDeliveryRow;
      let attempts = claims.held.get(d.recipient_key);
      claims.held.delete(d.recipient_key);
      if (attempts === undefined) {
        // Refused a moment ago by the claim that recorded the send before it: not asked again.
        const claimed =
          !claims.refused.has(d.recipient_key) &&
          (await this.deps.runs.claimDelivery(run.id, d.recipient_key, now, lease));
        if (!claimed) {
          // Taken by another replica meanwhile: its state is read back when the run settles.
          record.state = 'sending';
          continue;
        }
        attempts = d.attempts + 1;
      }
      const message: DeliveryMessage = {
        notificationId: n.id,
        deploymentId: n.deployment_id,
        dashboardId: n.dashboard_id,
        dashboardPublicId: n.dashboard_public_id,
        fireTime: run.fire_time,
        timezone: n.timezone,
        deliveryId: `n${n.id}:${run.fire_time.toISOString()}:${d.recipient_key}`,
        dashboardUrl: `${base}/dashboards/${encodeURIComponent(n.dashboard_public_id)}`,
        file,
      };
      const recipient = d.recipient_id === null ? undefined : recipients.get(d.recipient_id);
      let sent: SendOutcome;
      try {
        if (d.type === 'WEBHOOK') {
          const sealed = recipient?.webhook_secret_enc;
          if (!sealed) throw new DeliveryError('The webhook recipient was removed', false);
          await this.deps.channels.webhook(
            { url: d.address, secret: this.deps.secrets.open(sealed) },
            message,
          );
        } else {
          const name =
            recipient?.type === 'USER'
              ? null
              : (recipient?.username ?? recipient?.embed_display_name ?? null);
          await this.deps.channels.email({ address: d.address, name }, message);
        }
        sent = { sentAt: this.clock() };
        Object.assign(record, { state: 'sent', attempts, error: null });
      } catch (error) {
        const retryable = !(error instanceof DeliveryError) || error.retryable;
        const retryAt =
          retryable && attempts < this.options.maxAttempts ? this.after(now, this.backoff(attempts)) : null;
        sent = { error: describe(error), retryAt };
        Object.assign(record, {
          state: retryAt === null ? 'failed' : 'pending',
          attempts,
          error: describe(error),
          next_attempt_at: retryAt ?? d.next_attempt_at,
        });
      }
      // The statement that records this send claims the next one: one statement a send.
      const next = this.stopping ? undefined : claims.following.get(d.recipient_key);
      const claimedNext = await this.deps.runs.recordAndClaimNext(
        run.id,
        d.recipient_key,
        sent,
        next ? { key: next.recipient_key, now, leaseUntil: lease } : null,
      );
      if (next && claimedNext) claims.held.set(next.recipient_key, next.attempts + 1);
      else if (next) claims.refused.add(next.recipient_key);
    }
  }

  /** Records the run's outcome from its deliveries: open ones keep it pending until their retry. */
  private async settle(
    run: NotificationRunRow,
    renderError: string | null,
    failedWidgets: RenderedDashboardFile['failedWidgets'] | null,
    now: Date,
    known: NotificationDeliveryRow[],
  ): Promise<void> {
    // A delivery still `sending` here was another replica's: read every state back from the store.
    let deliveries = known.some((d) => d.state === 'sending')
      ? await this.deps.runs.deliveries([run.id])
      : known;
    const open = () => deliveries.filter((d) => d.state === 'pending' || d.state === 'sending');
    if (renderError !== null && open().length > 0) {
      if (run.attempts >= this.options.maxAttempts) {
        await this.deps.runs.failOpenDeliveries(run.id, renderError);
        deliveries = await this.deps.runs.deliveries([run.id]);
      } else {
        await this.deps.runs.finish(run.id, this.owner, {
          state: 'pending',
          error: renderError,
          failedWidgets,
          nextAttemptAt: this.after(now, this.backoff(run.attempts)),
          now,
        });
        return;
      }
    }
    const waiting = open();
    if (waiting.length > 0) {
      const next = waiting.reduce(
        (min, d) => (d.next_attempt_at < min ? d.next_attempt_at : min),
        waiting[0].next_attempt_at,
      );
      await this.deps.runs.finish(run.id, this.owner, {
        state: 'pending',
        error: firstError(deliveries) ?? renderError,
        failedWidgets,
        nextAttemptAt: next,
        now,
      });
      return;
    }
    const failed = deliveries.filter((d) => d.state === 'failed');
    const sent = deliveries.filter((d) => d.state === 'sent');
    const widgetsFailed = (failedWidgets?.length ?? 0) > 0;
    const state =
      failed.length > 0 && sent.length === 0
        ? 'failed'
        : failed.length > 0 || widgetsFailed
          ? 'partially_failed'
          : 'succeeded';
    const error =
      deliveries.length === 0
        ? 'The notification has no recipients: nothing was sent'
        : (firstError(failed) ??
          (widgetsFailed ? `${failedWidgets?.length} widget(s) could not be shown` : null));
    await this.deps.runs.finish(run.id, this.owner, {
      state,
      error: renderError ?? error,
      failedWidgets,
      nextAttemptAt: null,
      now,
    });
  }

  private backoff(attempts: number): number {
    return Math.min(this.options.maxBackoffMs, this.options.backoffMs * 2 ** Math.max(0, attempts - 1));
  }

  private after(now: Date, ms: number): Date {
    return new Date(now.getTime() + ms);
  }
}

/** Who receives what: an address per recipient, read when the run is planned. */
function addressOf(r: RecipientWithNames): string | null {
  switch (r.type) {
    case 'USER':
      return r.user_email;
    case 'EMBED_USER':
      return r.embed_email ?? emailOf(r.embed_external_id);
    case 'EMAIL':
      return r.email;
    case 'WEBHOOK':
      return r.webhook_url;
  }
}

/**
 * Deliveries grouped by the security context their render runs under (null: the owner is gone),
 * in the order they are sent.
 */
function groups<D extends { recipient_id: number | null }>(
  n: NotificationRow,
  deliveries: D[],
  recipients: Map<number, RecipientWithNames>,
): Group<D>[] {
  const owner: Group<D> = {
    subject: n.owner_id === null ? null : { kind: 'user', userId: n.owner_id },
    deliveries: [],
  };
  const out: Group<D>[] = [owner];
  for (const d of deliveries) {
    const r = recipients.get(d.recipient_id as number);
    if (r?.type === 'EMBED_USER' && r.embed_user_id !== null) {
      const securityContext = embedSecurityContext({
        callerContext: r.security_context ?? {},
        groups: r.groups ?? [],
        tenantGroups: [],
        embedTenantName: r.embed_tenant_name,
        userAttributes: r.user_attributes ?? {},
      });
      const subject: RenderSubject = {
        kind: 'embed',
        embedUserId: r.embed_user_id,
        embedTenantId: r.embed_tenant_id,
        embedTenantName: r.embed_tenant_name,
        externalId: r.embed_external_id ?? '',
        securityContext,
      };
      out.push({ subject, deliveries: [d] });
    } else owner.deliveries.push(d);
  }
  return out.filter((g) => g.deliveries.length > 0);
}

function describe(error: unknown): string {
  if (error instanceof DeliveryError || error instanceof RenderError || error instanceof DomainError)
    return error.message;
  return 'The dashboard could not be rendered';
}

function firstError(deliveries: NotificationDeliveryRow[]): string | null {
  return deliveries.find((d) => d.error !== null)?.error ?? null;
}

function parseFailed(value: unknown): RenderedDashboardFile['failedWidgets'] | null {
  return Array.isArray(value) ? (value as RenderedDashboardFile['failedWidgets']) : null;
}

function mergeFailed(
  a: RenderedDashboardFile['failedWidgets'] | null,
  b: RenderedDashboardFile['failedWidgets'],
): RenderedDashboardFile['failedWidgets'] {
  const seen = new Map((a ?? []).map((w) => [w.id, w]));
  for (const w of b) if (!seen.has(w.id)) seen.set(w.id, w);
  return [...seen.values()];
}

/**
 * Starts the scheduler when the application is ready and stops it when it closes. A disabled
 * scheduler is stopped too: the test deliveries it sends on request (POST .../test) open the same
 * SMTP pool, whose idle sockets would otherwise hold the process open after close.
 */
export const notificationSchedulerPlugin: FastifyPluginAsync<{
  scheduler: NotificationScheduler;
  disabled: boolean;
}> = async (app, { scheduler, disabled }) => {
  if (!disabled) app.addHook('onReady', async () => scheduler.start(app.log));
  app.addHook('onClose', () => scheduler.stop());
};
