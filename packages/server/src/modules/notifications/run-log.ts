import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import type { NotificationDeliveryRow, NotificationRunRow } from '../../db/schema.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { AuditLog } from '../audit-log/service.ts';
import type { RunsRepository } from './runs-repository.ts';
import type { Run } from './schemas.ts';
import type { NotificationsService } from './service.ts';

/** The run log of a notification (issue: "a run log per fire time (state, error, recipients)"). */
export class RunLog {
  constructor(
    private readonly deps: {
      notifications: NotificationsService;
      runs: RunsRepository;
      db: Db;
      /** Issue 22 item 5: a send-now is recorded in the transaction that queues its run. */
      audit: Pick<AuditLog, 'record'>;
      clock?: () => Date;
    },
  ) {}

  async list(principal: Principal, deploymentId: number, id: number, query: PageQuery) {
    await this.deps.notifications.require(principal, deploymentId, id);
    const window = pageWindow(query, 1);
    const rows = await this.deps.runs.list(id, window);
    const deliveries = await this.deps.runs.deliveries(rows.map((r) => r.id));
    return toPage(
      rows,
      window,
      (r) => [r.id],
      (r) => runView(r, deliveries),
    );
  }

  /** A run for the current second, outside the schedule; the scheduler's next pass delivers it. */
  async runNow(principal: Principal, deploymentId: number, id: number) {
    await this.deps.notifications.require(principal, deploymentId, id);
    const now = this.deps.clock?.() ?? new Date();
    const fireTime = new Date(Math.floor(now.getTime() / 1000) * 1000);
    const run = await this.deps.db.transaction().execute(async (trx) => {
      const queued = await this.deps.runs.insertRunNow(id, fireTime, now, trx);
      await this.deps.audit.record(trx, principal, {
        action: 'notification.send_now',
        targetType: 'notification',
        targetId: id,
        after: { deploymentId, runId: queued.id, fireTime: fireTime.toISOString() },
      });
      return queued;
    });
    return { run: runView(run, await this.deps.runs.deliveries([run.id])) };
  }
}

export function runView(r: NotificationRunRow, deliveries: NotificationDeliveryRow[]): Static<typeof Run> {
  const open = r.state === 'pending' || r.state === 'running';
  return {
    id: r.id,
    notificationId: r.notification_id,
    fireTime: r.fire_time.toISOString(),
    state: r.state,
    attempts: r.attempts,
    error: r.error,
    failedWidgets: Array.isArray(r.failed_widgets) ? r.failed_widgets : [],
    nextAttemptAt: open ? r.next_attempt_at.toISOString() : null,
    startedAt: r.started_at?.toISOString() ?? null,
    finishedAt: r.finished_at?.toISOString() ?? null,
    deliveries: deliveries
      .filter((d) => d.run_id === r.id)
      .map((d) => ({
        type: d.type,
        address: d.address,
        state: d.state,
        attempts: d.attempts,
        error: d.error,
        sentAt: d.sent_at?.toISOString() ?? null,
      })),
  };
}
