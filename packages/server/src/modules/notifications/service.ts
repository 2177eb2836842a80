import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import type { NotificationRow } from '../../db/schema.ts';
import { type FieldProblem, NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { AuditLog } from '../audit-log/service.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import type {
  NotificationListFilter,
  NotificationsRepository,
  NotificationWithDashboard,
  RecipientFilter,
} from './repository.ts';
import { buildSchedule, type Schedule, type ScheduleInput } from './schedule.ts';
import { nextFireTimes } from './schedule-times.ts';
import type {
  CreateNotificationBody,
  Notification,
  NotificationsListQuery,
  UpdateNotificationBody,
} from './schemas.ts';
import { humanReadable } from './view.ts';

export interface NotificationsServiceDeps {
  db: Db;
  notifications: NotificationsRepository;
  deployments: DeploymentsService;
  /** Issue 22 item 5: each change is recorded in its own transaction. */
  audit: Pick<AuditLog, 'record'>;
  /** The scheduler's clock: what "now" is when a schedule is (re)started. */
  now?: () => Date;
}

type Create = Static<typeof CreateNotificationBody>;
type Update = Static<typeof UpdateNotificationBody>;
type View = Static<typeof Notification>;

/**
 * Scheduled notifications (spec 2.5, 4.5; the reference's Notifications group). A notification
 * renders its dashboard under the security context of its owner, the user whose credential
 * created it. Starting a schedule (creation, enabling, changing the cadence) counts from now:
 * fire times before that are not caught up. Recipients are recipients.ts; runs are scheduler.ts.
 */
export class NotificationsService {
  private readonly now: () => Date;

  constructor(private readonly deps: NotificationsServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async create(principal: Principal, deploymentId: number, body: Create): Promise<View> {
    await this.deps.deployments.require(principal.tenantId, deploymentId);
    const id = await this.deps.db
      .transaction()
      .execute((trx) => this.createWithin(principal, deploymentId, body, trx));
    return this.get(principal, deploymentId, id);
  }

  /**
   * `create`'s checks and writes in the caller's transaction; content apply (modules/content) gives
   * the key its file names the notification by (migration 0033).
   */
  async createWithin(
    principal: Principal,
    deploymentId: number,
    body: Create,
    trx: Db,
    contentKey: string | null = null,
  ): Promise<number> {
    const problems: FieldProblem[] = [];
    const built = buildSchedule(body);
    if (!built.ok) problems.push(...built.errors);
    const hasId = body.dashboardId != null;
    const hasPublicId = body.dashboardPublicId != null;
    if (hasId === hasPublicId)
      problems.push({
        field: hasId ? 'body/dashboardPublicId' : 'body/dashboardId',
        message: 'exactly one of dashboardId and dashboardPublicId must be given',
      });
    problems.push(...unsupported(body));
    if (problems.length > 0 || !built.ok) throw invalid(problems);

    const dashboard = hasId
      ? await this.deps.notifications.dashboardById(deploymentId, body.dashboardId as number, trx)
      : await this.deps.notifications.dashboardByPublicId(
          deploymentId,
          body.dashboardPublicId as string,
          trx,
        );
    // Spec 4.5 and 7: the dashboard must belong to this deployment.
    if (!dashboard)
      throw new NotFoundError(
        `Dashboard ${body.dashboardId ?? body.dashboardPublicId} in deployment ${deploymentId}`,
        'dashboard_not_found',
      );

    const now = this.now();
    const enabled = (body.isEnabled ?? true) && (body.notificationEnabled ?? true);
    const created = await this.deps.notifications.insert(
      {
        tenant_id: principal.tenantId,
        deployment_id: deploymentId,
        dashboard_id: dashboard.id,
        owner_id: principal.userId || null,
        schedule_type: body.scheduleType,
        minute: body.minute ?? null,
        hour: body.hour ?? null,
        day_of_week: body.dayOfWeek ?? null,
        day_of_month: body.dayOfMonth ?? null,
        custom_cron: body.scheduleType === 'CUSTOM' ? (body.customCron ?? null) : null,
        cron_expression: built.schedule.cronExpression,
        timezone: built.schedule.timezone,
        is_enabled: body.isEnabled ?? true,
        notification_enabled: body.notificationEnabled ?? true,
        notification_format: body.notificationFormat ?? 'png',
        notification_ai_summary: false,
        filters: json(body.filters),
        time_grains: json(body.timeGrains),
        member_switchers: json(body.memberSwitchers),
        last_fire_at: now,
        next_fire_at: enabled ? nextFire(built.schedule, now) : null,
        content_key: contentKey,
      },
      trx,
    );
    const row = await this.deps.notifications.lock(deploymentId, created, trx);
    await this.deps.audit.record(trx, principal, {
      action: 'notification.create',
      targetType: 'notification',
      targetId: created,
      after: row ? notificationAudit(row) : null,
    });
    return created;
  }

  async get(principal: Principal, deploymentId: number, id: number): Promise<View> {
    return notificationView(await this.require(principal, deploymentId, id));
  }

  async require(principal: Principal, deploymentId: number, id: number): Promise<NotificationWithDashboard> {
    await this.deps.deployments.require(principal.tenantId, deploymentId);
    const row = await this.deps.notifications.find(deploymentId, id);
    if (!row) throw new NotFoundError(`Notification ${id}`, 'notification_not_found');
    return row;
  }

  async list(
    principal: Principal,
    deploymentId: number,
    query: Static<typeof NotificationsListQuery> & PageQuery,
    resolveRecipient: (tenantId: number, q: typeof query) => Promise<RecipientFilter | null>,
  ) {
    await this.deps.deployments.require(principal.tenantId, deploymentId);
    const problems: FieldProblem[] = [];
    if (query.dashboardId !== undefined && query.dashboardPublicId !== undefined)
      problems.push({
        field: 'querystring/dashboardPublicId',
        message: 'give dashboardId or dashboardPublicId, not both',
      });
    const userFilters = [query.recipientUserId, query.recipientEmail].filter((v) => v !== undefined).length;
    const embedFilters = [query.recipientEmbedTenantName, query.recipientExternalId].filter(
      (v) => v !== undefined,
    ).length;
    if (userFilters > 1)
      problems.push({
        field: 'querystring/recipientEmail',
        message: 'give recipientUserId or recipientEmail, not both',
      });
    if (userFilters > 0 && embedFilters > 0)
      problems.push({
        field: 'querystring/recipientEmbedTenantName',
        message: 'the embed-user filter cannot be combined with recipientUserId or recipientEmail',
      });
    if (embedFilters === 1)
      problems.push({
        field:
          query.recipientExternalId === undefined
            ? 'querystring/recipientExternalId'
            : 'querystring/recipientEmbedTenantName',
        message: 'recipientEmbedTenantName and recipientExternalId go together',
      });
    if (problems.length > 0) throw invalid(problems);

    const window = pageWindow(query, 1);
    let dashboardId: number | null = query.dashboardId ?? null;
    if (query.dashboardPublicId !== undefined) {
      const d = await this.deps.notifications.dashboardByPublicId(deploymentId, query.dashboardPublicId);
      // An unknown dashboard has no notifications: an empty page, as any filter matching nothing.
      dashboardId = d?.id ?? 0;
    }
    const filter: NotificationListFilter = {
      dashboardId,
      recipient: await resolveRecipient(principal.tenantId, query),
    };
    const rows = await this.deps.notifications.list(deploymentId, filter, window);
    return toPage(rows, window, (r) => [r.id], notificationView);
  }

  async update(principal: Principal, deploymentId: number, id: number, body: Update): Promise<View> {
    await this.deps.deployments.require(principal.tenantId, deploymentId);
    await this.deps.db
      .transaction()
      .execute((trx) => this.updateWithin(principal, deploymentId, id, body, trx));
    return this.get(principal, deploymentId, id);
  }

  /** `update`'s checks and writes in the caller's transaction (also content apply). */
  async updateWithin(principal: Principal, deploymentId: number, id: number, body: Update, trx: Db) {
    const problems = unsupported(body);
    if (problems.length > 0) throw invalid(problems);
    // The row lock orders this update with a scheduler pass planning the same notification.
    const row = await this.deps.notifications.lock(deploymentId, id, trx);
    if (!row) throw new NotFoundError(`Notification ${id}`, 'notification_not_found');
    const merged: ScheduleInput = {
      scheduleType: body.scheduleType ?? row.schedule_type,
      minute: body.minute ?? row.minute,
      hour: body.hour ?? row.hour,
      dayOfWeek: body.dayOfWeek ?? row.day_of_week,
      dayOfMonth: body.dayOfMonth ?? row.day_of_month,
      customCron: body.customCron ?? row.custom_cron,
      timezone: body.timezone ?? row.timezone,
    };
    const built = buildSchedule(merged);
    if (!built.ok) throw invalid(built.errors);
    const schedule = built.schedule;
    const isEnabled = body.isEnabled ?? row.is_enabled;
    const notificationEnabled = body.notificationEnabled ?? row.notification_enabled;
    const enabled = isEnabled && notificationEnabled;
    const wasEnabled = row.is_enabled && row.notification_enabled;
    const cadenceChanged =
      schedule.cronExpression !== row.cron_expression || schedule.timezone !== row.timezone;
    const now = this.now();
    // (Re)starting counts from now: no catch-up for the time it was paused or on another cadence.
    const restart = enabled && (!wasEnabled || cadenceChanged);
    await this.deps.notifications.update(
      id,
      {
        schedule_type: merged.scheduleType,
        minute: merged.minute ?? null,
        hour: merged.hour ?? null,
        day_of_week: merged.dayOfWeek ?? null,
        day_of_month: merged.dayOfMonth ?? null,
        custom_cron: merged.scheduleType === 'CUSTOM' ? (merged.customCron ?? null) : null,
        cron_expression: schedule.cronExpression,
        timezone: schedule.timezone,
        is_enabled: isEnabled,
        notification_enabled: notificationEnabled,
        ...(body.notificationFormat != null ? { notification_format: body.notificationFormat } : {}),
        ...(body.filters !== undefined ? { filters: json(body.filters) } : {}),
        ...(body.timeGrains !== undefined ? { time_grains: json(body.timeGrains) } : {}),
        ...(body.memberSwitchers !== undefined ? { member_switchers: json(body.memberSwitchers) } : {}),
        ...(restart ? { last_fire_at: now, next_fire_at: nextFire(schedule, now) } : {}),
        ...(!enabled ? { next_fire_at: null } : {}),
      },
      trx,
    );
    const after = await this.deps.notifications.lock(deploymentId, id, trx);
    await this.deps.audit.record(trx, principal, {
      action: 'notification.update',
      targetType: 'notification',
      targetId: id,
      before: notificationAudit(row),
      after: after ? notificationAudit(after) : null,
    });
  }

  async delete(principal: Principal, deploymentId: number, id: number): Promise<void> {
    await this.deps.deployments.require(principal.tenantId, deploymentId);
    await this.deps.db.transaction().execute((trx) => this.deleteWithin(principal, deploymentId, id, trx));
  }

  /** `delete`'s writes in the caller's transaction (also content apply). */
  async deleteWithin(principal: Principal, deploymentId: number, id: number, trx: Db): Promise<void> {
    const row = await this.deps.notifications.lock(deploymentId, id, trx);
    if (!row || !(await this.deps.notifications.delete(deploymentId, id, trx)))
      throw new NotFoundError(`Notification ${id}`, 'notification_not_found');
    await this.deps.audit.record(trx, principal, {
      action: 'notification.delete',
      targetType: 'notification',
      targetId: id,
      before: notificationAudit(row),
    });
  }
}

/** What an audit entry says of a notification: its dashboard, schedule, switches and filters. */
export function notificationAudit(r: NotificationRow) {
  return {
    deploymentId: r.deployment_id,
    dashboardId: r.dashboard_id,
    scheduleType: r.schedule_type,
    cronExpression: r.cron_expression,
    timezone: r.timezone,
    isEnabled: r.is_enabled,
    notificationEnabled: r.notification_enabled,
    notificationFormat: r.notification_format,
    filters: r.filters ?? null,
    timeGrains: r.time_grains ?? null,
  };
}

/** The first fire time after `now`, or null for a schedule that never fires again. */
export function nextFire(schedule: Pick<Schedule, 'cronExpression' | 'timezone'>, now: Date): Date | null {
  return nextFireTimes(schedule, now, 1)[0] ?? null;
}

/** Fields of the reference this server does not act on: refused rather than silently ignored. */
function unsupported(body: Create | Update): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (body.notificationAiSummary === true)
    problems.push({ field: 'body/notificationAiSummary', message: 'AI summaries are not supported' });
  if (body.memberSwitchers && body.memberSwitchers.length > 0)
    problems.push({ field: 'body/memberSwitchers', message: 'field switchers are not supported yet' });
  return problems;
}

function invalid(problems: FieldProblem[]): ValidationError {
  const fields = [...new Set(problems.map((p) => p.field.replace(/^(body|querystring)\//, '')))];
  return new ValidationError(`Invalid notification: ${fields.join(', ')}`, problems);
}

function json(value: unknown[] | null | undefined): string | null {
  return value == null ? null : JSON.stringify(value);
}

export function notificationView(r: NotificationWithDashboard): View {
  return {
    id: r.id,
    deploymentId: r.deployment_id,
    dashboardId: r.dashboard_id,
    dashboardPublicId: r.dashboard_public_id,
    scheduleType: r.schedule_type as View['scheduleType'],
    minute: r.minute,
    hour: r.hour,
    dayOfWeek: r.day_of_week,
    dayOfMonth: r.day_of_month,
    customCron: r.custom_cron,
    cronExpression: r.cron_expression,
    humanReadableSchedule: humanReadable(r),
    timezone: r.timezone,
    isEnabled: r.is_enabled,
    notificationEnabled: r.notification_enabled,
    notificationFormat: r.notification_format,
    notificationAiSummary: r.notification_ai_summary,
    filters: (r.filters as View['filters']) ?? null,
    timeGrains: (r.time_grains as View['timeGrains']) ?? null,
    memberSwitchers: (r.member_switchers as View['memberSwitchers']) ?? null,
    ownerId: r.owner_id,
    nextFireAt: r.next_fire_at?.toISOString() ?? null,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}
