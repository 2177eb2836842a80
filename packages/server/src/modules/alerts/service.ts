import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { SecretBox } from '../../crypto/secrets.ts';
import type { Db } from '../../db/database.ts';
import type {
  AlertCheckResultRow,
  AlertCheckRow,
  AlertDeliveryAttemptRow,
  AlertRecipientRow,
  AlertRow,
} from '../../db/schema.ts';
import {
  DomainError,
  type FieldProblem,
  NotFoundError,
  ValidationError,
} from '../../errors/domain-errors.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { AuditLog } from '../audit-log/service.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import { buildSchedule } from '../notifications/schedule.ts';
import { nextFireTimes } from '../notifications/schedule-times.ts';
import { webhookUrlProblem } from '../notifications/signed-webhook.ts';
import { humanReadable } from '../notifications/view.ts';
import type { AlertChecker } from './checker.ts';
import type { MeasureReader } from './measure.ts';
import type { AlertUsers, AlertViewers } from './ports.ts';
import type { AlertsRepository } from './repository.ts';
import type { Alert, AlertCheck, CreateAlertBody, UpdateAlertBody } from './schemas.ts';
import { emailShape, queryProblems } from './validate.ts';

type Create = Static<typeof CreateAlertBody>;
type Update = Static<typeof UpdateAlertBody>;
type View = Static<typeof Alert>;
type CheckView = Static<typeof AlertCheck>;

export interface AlertsServiceDeps {
  db: Db;
  alerts: AlertsRepository;
  deployments: Pick<DeploymentsService, 'require'>;
  users: AlertUsers;
  viewers: AlertViewers;
  measures: MeasureReader;
  checker: AlertChecker;
  audit: Pick<AuditLog, 'record'>;
  /** Seals webhook recipients' secrets (never returned, logged or audited). */
  secrets: Pick<SecretBox, 'seal'>;
  now?: () => Date;
}

/**
 * Alerts on measures (issue 23 item 6): "tell me when this measure crosses a threshold, or
 * changes by more than N% against the previous period". An alert is checked on its schedule by
 * checker.ts, or now with POST .../check; it mails a recipient (or POSTs to a webhook one) when
 * its condition starts to hold for them, never again while it keeps holding. Its owner is the
 * user whose credential created it: under `owner` the measure is read as them, under `recipient`
 * as each recipient.
 */
export class AlertsService {
  private readonly now: () => Date;

  constructor(private readonly deps: AlertsServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async list(principal: Principal, deploymentId: number, query: PageQuery) {
    await this.deps.deployments.require(principal.tenantId, deploymentId);
    const window = pageWindow(query, 1);
    const rows = await this.deps.alerts.list(deploymentId, window);
    const recipients = await this.deps.alerts.recipients(rows.map((r) => r.id));
    return toPage(
      rows,
      window,
      (r) => [r.id],
      (r) =>
        view(
          r,
          recipients.filter((x) => x.alert_id === r.id),
        ),
    );
  }

  async get(principal: Principal, deploymentId: number, id: number): Promise<View> {
    const row = await this.require(principal, deploymentId, id);
    return view(row, await this.deps.alerts.recipients([id]));
  }

  async create(principal: Principal, deploymentId: number, body: Create): Promise<View> {
    await this.deps.deployments.require(principal.tenantId, deploymentId);
    const ownerId = principal.userId > 0 ? principal.userId : null;
    const checked = await this.check(principal.tenantId, deploymentId, ownerId, body, []);
    const now = this.now();
    const id = await this.deps.db.transaction().execute(async (trx) => {
      const row = await this.deps.alerts.insert(
        {
          tenant_id: principal.tenantId,
          deployment_id: deploymentId,
          owner_id: ownerId,
          ...checked.columns,
          last_fire_at: now,
          next_fire_at: checked.enabled ? checked.next(now) : null,
        },
        trx,
      );
      await this.deps.alerts.setRecipients(row.id, checked.recipients, trx);
      await this.deps.audit.record(trx, principal, {
        action: 'alert.create',
        targetType: 'alert',
        targetId: row.id,
        after: { name: row.name, query: body.query, condition: body.condition },
      });
      return row.id;
    });
    return this.get(principal, deploymentId, id);
  }

  /**
   * Any subset of the fields. A change of what is watched (query, condition, security context,
   * recipients) forgets whether the condition held, so the next check that finds it holding fires.
   */
  async update(principal: Principal, deploymentId: number, id: number, body: Update): Promise<View> {
    const row = await this.require(principal, deploymentId, id);
    const existing = await this.deps.alerts.recipients([id]);
    const current = view(row, existing);
    const merged: Create = {
      name: body.name ?? current.name,
      query: body.query ?? current.query,
      condition: body.condition ?? current.condition,
      scheduleType: body.scheduleType ?? current.scheduleType,
      customCron: body.customCron !== undefined ? body.customCron : current.customCron,
      minute: body.minute !== undefined ? body.minute : current.minute,
      hour: body.hour !== undefined ? body.hour : current.hour,
      dayOfWeek: body.dayOfWeek !== undefined ? body.dayOfWeek : current.dayOfWeek,
      dayOfMonth: body.dayOfMonth !== undefined ? body.dayOfMonth : current.dayOfMonth,
      timezone: body.timezone ?? current.timezone,
      // A webhook named again without its secret keeps the one stored (recipients() below).
      recipients:
        body.recipients ??
        current.recipients.map((r) =>
          r.userId ? { userId: r.userId } : r.url ? { url: r.url } : { email: r.email },
        ),
      securityContext: body.securityContext ?? current.securityContext,
      isEnabled: body.isEnabled ?? current.isEnabled,
    };
    const checked = await this.check(principal.tenantId, deploymentId, row.owner_id, merged, existing);
    const now = this.now();
    const rescheduled =
      checked.columns.cron_expression !== row.cron_expression ||
      checked.columns.timezone !== row.timezone ||
      checked.enabled !== row.is_enabled;
    const watched =
      body.query !== undefined ||
      body.condition !== undefined ||
      body.securityContext !== undefined ||
      body.recipients !== undefined;
    await this.deps.db.transaction().execute(async (trx) => {
      await this.deps.alerts.update(
        id,
        {
          ...checked.columns,
          ...(rescheduled
            ? { last_fire_at: now, next_fire_at: checked.enabled ? checked.next(now) : null }
            : {}),
        },
        trx,
      );
      if (body.recipients !== undefined) await this.deps.alerts.setRecipients(id, checked.recipients, trx);
      else if (watched) await this.deps.alerts.resetStates(id, trx);
      await this.deps.audit.record(trx, principal, {
        action: 'alert.update',
        targetType: 'alert',
        targetId: id,
        before: { name: row.name, query: row.query, condition: row.condition },
        after: { name: merged.name, query: merged.query, condition: merged.condition },
      });
    });
    return this.get(principal, deploymentId, id);
  }

  async delete(principal: Principal, deploymentId: number, id: number): Promise<{ success: boolean }> {
    const row = await this.require(principal, deploymentId, id);
    await this.deps.db.transaction().execute(async (trx) => {
      await this.deps.alerts.delete(id, trx);
      await this.deps.audit.record(trx, principal, {
        action: 'alert.delete',
        targetType: 'alert',
        targetId: id,
        before: { name: row.name },
      });
    });
    return { success: true };
  }

  /** Checks the alert now, whatever its schedule, and answers the check's log entry. */
  async checkNow(principal: Principal, deploymentId: number, id: number): Promise<CheckView> {
    await this.require(principal, deploymentId, id);
    const check = await this.deps.checker.checkNow(id, this.now());
    return (await this.checkViews([check], await this.deps.alerts.recipients([id])))[0];
  }

  async checks(principal: Principal, deploymentId: number, id: number, query: PageQuery) {
    await this.require(principal, deploymentId, id);
    const window = pageWindow(query, 1);
    const rows = await this.deps.alerts.checks(id, window);
    const page = toPage(
      rows,
      window,
      (r) => [r.id],
      (r) => r,
    );
    const items = await this.checkViews(page.items, await this.deps.alerts.recipients([id]));
    return { items, pageInfo: page.pageInfo };
  }

  private async checkViews(checks: AlertCheckRow[], recipients: AlertRecipientRow[]): Promise<CheckView[]> {
    const ids = checks.map((c) => c.id);
    const [results, attempts] = await Promise.all([
      this.deps.alerts.results(ids),
      this.deps.alerts.attempts(ids),
    ]);
    return checks.map((c) =>
      checkView(
        c,
        results.filter((r) => r.check_id === c.id),
        attempts.filter((a) => a.check_id === c.id),
        recipients,
      ),
    );
  }

  private async require(principal: Principal, deploymentId: number, id: number): Promise<AlertRow> {
    await this.deps.deployments.require(principal.tenantId, deploymentId);
    const row = await this.deps.alerts.find(deploymentId, id);
    if (!row || row.tenant_id !== principal.tenantId)
      throw new NotFoundError(`Alert ${id} in deployment ${deploymentId}`, 'alert_not_found');
    return row;
  }

  /** Every problem of the body at once (one 400 naming each field), then its columns. */
  private async check(
    tenantId: number,
    deploymentId: number,
    ownerId: number | null,
    body: Create,
    existing: AlertRecipientRow[],
  ) {
    const problems: FieldProblem[] = [];
    const built = buildSchedule(body);
    if (!built.ok) problems.push(...built.errors);
    const mode = body.securityContext ?? 'owner';
    if (ownerId === null && mode === 'owner')
      problems.push({
        field: 'body/securityContext',
        message:
          'owner needs a credential of a user, whose security context reads the measure; use recipient',
      });
    const recipients = await this.recipients(tenantId, body.recipients, mode, existing, problems);
    if (ownerId !== null) {
      const owner = await this.deps.viewers.user(tenantId, ownerId);
      const members = await this.deps.measures.members(owner, deploymentId);
      const found = queryProblems(body.query, body.condition, members);
      problems.push(...found);
      if (found.length === 0) {
        // What the shape and the members cannot tell (a date range, a filter's values) the
        // semantic layer does: its message, on the query field.
        try {
          await this.deps.measures.compile(owner, deploymentId, body.query);
        } catch (error) {
          if (!(error instanceof DomainError) || error.status !== 400) throw error;
          problems.push({ field: 'body/query', message: error.message });
        }
      }
    }
    if (problems.length > 0 || !built.ok) throw new ValidationError('The alert is not valid', problems);
    const schedule = built.schedule;
    return {
      enabled: body.isEnabled ?? true,
      recipients,
      next: (now: Date) => nextFireTimes(schedule, now, 1)[0] ?? null,
      columns: {
        name: body.name,
        query: JSON.stringify(body.query),
        condition: JSON.stringify(body.condition),
        security_context: mode,
        schedule_type: body.scheduleType,
        minute: body.minute ?? null,
        hour: body.hour ?? null,
        day_of_week: body.dayOfWeek ?? null,
        day_of_month: body.dayOfMonth ?? null,
        custom_cron: body.scheduleType === 'CUSTOM' ? (body.customCron ?? null) : null,
        cron_expression: schedule.cronExpression,
        timezone: schedule.timezone,
        is_enabled: body.isEnabled ?? true,
      },
    };
  }

  /**
   * Each recipient is an account user (by id or email), or under `owner` any address or a
   * webhook. Under `recipient` the measure is read as each of them, so each must be an account
   * user. A webhook's secret is sealed here; one named again without it keeps the stored one.
   */
  private async recipients(
    tenantId: number,
    input: Create['recipients'],
    mode: string,
    existing: AlertRecipientRow[],
    problems: FieldProblem[],
  ): Promise<Omit<AlertRecipientRow, 'alert_id'>[]> {
    const out = new Map<string, Omit<AlertRecipientRow, 'alert_id'>>();
    const none = { user_id: null, email: null, webhook_url: null, webhook_secret_sealed: null };
    for (const [i, r] of input.entries()) {
      const field = `body/recipients/${i}`;
      const given = [r.userId, r.email, r.url].filter((x) => x != null).length;
      if (given !== 1) {
        problems.push({ field, message: 'give exactly one of userId, email and url' });
        continue;
      }
      if (r.secret != null && r.url == null) {
        problems.push({ field: `${field}/secret`, message: 'is for a webhook recipient (url) only' });
        continue;
      }
      if (r.url != null) {
        const url = r.url.trim();
        const key = `webhook:${url}`;
        const kept = existing.find((x) => x.recipient_key === key)?.webhook_secret_sealed ?? null;
        const bad = webhookUrlProblem(url);
        if (bad) problems.push({ field: `${field}/url`, message: bad });
        else if (mode === 'recipient')
          problems.push({
            field: `${field}/url`,
            message:
              'is no account user: under securityContext recipient each recipient reads the measure as themselves',
          });
        else if (r.secret == null && kept === null)
          problems.push({ field: `${field}/secret`, message: 'is required for a new webhook' });
        else
          out.set(key, {
            ...none,
            recipient_key: key,
            webhook_url: url,
            webhook_secret_sealed: r.secret != null ? this.deps.secrets.seal(r.secret) : kept,
          });
        continue;
      }
      if (r.userId != null) {
        const user = await this.deps.users.find(tenantId, r.userId);
        if (!user) problems.push({ field: `${field}/userId`, message: `user ${r.userId} does not exist` });
        else out.set(`user:${user.id}`, { ...none, recipient_key: `user:${user.id}`, user_id: user.id });
        continue;
      }
      const email = (r.email as string).trim().toLowerCase();
      // An account user's address is theirs whatever its shape (`admin@localhost`); others must look like one.
      const user = await this.deps.users.findByEmail(tenantId, email);
      if (user) out.set(`user:${user.id}`, { ...none, recipient_key: `user:${user.id}`, user_id: user.id });
      else if (!emailShape.test(email))
        problems.push({ field: `${field}/email`, message: 'is not an email address' });
      else if (mode === 'recipient')
        problems.push({
          field: `${field}/email`,
          message:
            'is no account user: under securityContext recipient each recipient reads the measure as themselves',
        });
      else out.set(`email:${email}`, { ...none, recipient_key: `email:${email}`, email });
    }
    return [...out.values()];
  }
}

function iso(d: Date | null): string | null {
  return d === null ? null : d.toISOString();
}

/** A recipient as the API shows it: a webhook by its URL, never its secret. */
function recipientView(r: AlertRecipientRow) {
  return r.webhook_url !== null
    ? { userId: null, email: null, url: r.webhook_url }
    : { userId: r.user_id, email: r.email };
}

function recipientOf(key: string, recipients: AlertRecipientRow[]) {
  const r = recipients.find((x) => x.recipient_key === key);
  if (r) return recipientView(r);
  // A recipient removed since: its key still says who it was.
  const [kind, rest] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
  if (kind === 'webhook') return { userId: null, email: null, url: rest };
  return kind === 'user' ? { userId: Number(rest), email: null } : { userId: null, email: rest };
}

function view(row: AlertRow, recipients: AlertRecipientRow[]): View {
  return {
    id: row.id,
    deploymentId: row.deployment_id,
    name: row.name,
    query: row.query as View['query'],
    condition: row.condition as View['condition'],
    securityContext: row.security_context,
    scheduleType: row.schedule_type as View['scheduleType'],
    minute: row.minute,
    hour: row.hour,
    dayOfWeek: row.day_of_week,
    dayOfMonth: row.day_of_month,
    customCron: row.custom_cron,
    cronExpression: row.cron_expression,
    humanReadableSchedule: humanReadable(row),
    timezone: row.timezone,
    isEnabled: row.is_enabled,
    recipients: recipients.map(recipientView),
    ownerId: row.owner_id,
    nextCheckAt: iso(row.next_fire_at),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function checkView(
  c: AlertCheckRow,
  results: AlertCheckResultRow[],
  attempts: AlertDeliveryAttemptRow[],
  recipients: AlertRecipientRow[],
): CheckView {
  return {
    id: c.id,
    alertId: c.alert_id,
    trigger: c.trigger,
    fireTime: iso(c.fire_time),
    state: c.state,
    error: c.error,
    createdAt: c.created_at.toISOString(),
    finishedAt: iso(c.finished_at),
    results: results.map((r) => ({
      recipient: recipientOf(r.recipient_key, recipients),
      value: r.value,
      previousValue: r.previous_value,
      conditionMet: r.condition_met,
      fired: r.fired,
      delivery: r.delivery,
      error: r.error,
      sentAt: iso(r.sent_at),
      nextAttemptAt: r.delivery === 'retrying' ? iso(r.next_attempt_at) : null,
      attempts: attempts
        .filter((a) => a.recipient_key === r.recipient_key)
        .map((a) => ({
          attempt: a.attempt,
          at: a.attempted_at.toISOString(),
          outcome: a.outcome,
          error: a.error,
          retryAt: iso(a.retry_at),
        })),
    })),
  };
}
