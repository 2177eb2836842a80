import type { FastifyBaseLogger } from 'fastify';
import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import { randomToken } from '../../crypto/secrets.ts';
import type { Db } from '../../db/database.ts';
import type { DashboardExportRow } from '../../db/schema.ts';
import {
  ConflictError,
  DomainError,
  type FieldProblem,
  ForbiddenError,
  NotFoundError,
  ValidationError,
} from '../../errors/domain-errors.ts';
import type { AuditLog } from '../audit-log/service.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import { embedSecurityContext, serverOwnedContextKeys } from '../embed/session-rules.ts';
import type { EmbedIdentities } from '../embed-tenants/identities.ts';
import { dashboardSubject } from '../permissions/access.ts';
import type { AccessResolver } from '../permissions/resolver.ts';
import type { ExportsRepository } from './exports-repository.ts';
import type { ExportStatus, StartExportBody } from './exports-schemas.ts';
import type { UserLookup, WorkbookLookup } from './ports.ts';
import { type DashboardRenderer, RenderError, type RenderSubject } from './renderer.ts';
import type { NotificationsRepository } from './repository.ts';

export interface ExportsServiceDeps {
  db: Db;
  /**
   * Issue 22 item 5: a whole-dashboard export is a bulk data export, recorded in the transaction
   * that queues it (without the job id, which is its download handle).
   */
  audit: Pick<AuditLog, 'record'>;
  exports: ExportsRepository;
  notifications: NotificationsRepository;
  deployments: DeploymentsService;
  access: AccessResolver;
  workbooks: WorkbookLookup;
  users: UserLookup;
  embedIdentities: Pick<EmbedIdentities, 'upsertTenant' | 'upsertUser'>;
  renderer: DashboardRenderer;
  /**
   * Render a job at once in the replica that accepted it: false where the scheduler is disabled
   * (TESSERA_SCHEDULER_DISABLED), which leaves every job to a replica that runs it.
   */
  renderOnSubmit: boolean;
  clock?: () => Date;
}

type Start = Static<typeof StartExportBody>;

/** The reference: "The job and its file are dropped at expiresAt (5 minutes)". */
export const exportLifetimeMs = 5 * 60_000;
/** Exports rendering at once for one requester before a new one is 429. */
export const maxExportsInFlight = 5;
const leaseMs = 2 * 60_000;

/**
 * Dashboard exports (the reference's Dashboard Exports group): submit, poll, download. A job is a
 * row any replica can answer for; the replica that accepted it renders it at once, and the
 * scheduler's pass in any replica takes over one whose renderer died (its lease passed). The
 * render is the notifications' own (renderer.ts), with the caller's filters and time grains, under
 * the caller's security context or, for a tenant admin, under `renderAs`'s.
 */
export class DashboardExportsService {
  private readonly clock: () => Date;
  private log: FastifyBaseLogger | null = null;

  constructor(private readonly deps: ExportsServiceDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  setLogger(log: FastifyBaseLogger): void {
    this.log = log;
  }

  async start(principal: Principal, deploymentId: number, body: Start) {
    await this.deps.deployments.require(principal.tenantId, deploymentId);
    const problems: FieldProblem[] = [];
    if ((body.dashboardId == null) === (body.dashboardPublicId == null))
      problems.push({
        field: body.dashboardId == null ? 'body/dashboardId' : 'body/dashboardPublicId',
        message: 'exactly one of dashboardId and dashboardPublicId must be given',
      });
    if (body.memberSwitchers && body.memberSwitchers.length > 0)
      problems.push({ field: 'body/memberSwitchers', message: 'field switchers are not supported yet' });
    if (problems.length > 0) throw new ValidationError('Invalid export', problems);

    const dashboard =
      body.dashboardId != null
        ? await this.deps.notifications.dashboardById(deploymentId, body.dashboardId)
        : await this.deps.notifications.dashboardByPublicId(deploymentId, body.dashboardPublicId as string);
    if (!dashboard)
      throw new NotFoundError(
        `Dashboard ${body.dashboardId ?? body.dashboardPublicId} in deployment ${deploymentId}`,
        'dashboard_not_found',
      );
    // A whole-dashboard render is a bulk data export: manage access to its workbook (the reference).
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const workbook = await this.deps.workbooks.find(deploymentId, dashboard.workbook_id);
    if (!workbook) throw new NotFoundError(`Dashboard ${dashboard.public_id}`, 'dashboard_not_found');
    ctx.require(ctx.item('WORKBOOK', workbook), 'manage', dashboardSubject(dashboard.public_id, workbook.id));

    const subject = body.renderAs
      ? await this.subject(principal, body.renderAs)
      : ({ kind: 'user', userId: principal.userId } as const);
    const now = this.clock();
    if ((await this.deps.exports.inFlight(principal.userId, now)) >= maxExportsInFlight)
      throw new DomainError(
        'exports_in_flight',
        `${maxExportsInFlight} exports are already rendering for you; wait for one to finish`,
        { retryAfterSeconds: 5 },
      );
    const id = randomToken(18);
    const expiresAt = new Date(now.getTime() + exportLifetimeMs);
    await this.deps.db.transaction().execute(async (trx) => {
      await this.deps.exports.insert(
        {
          id,
          tenant_id: principal.tenantId,
          deployment_id: deploymentId,
          dashboard_id: dashboard.id,
          requested_by: principal.userId,
          format: body.format,
          request: JSON.stringify({
            dashboardPublicId: dashboard.public_id,
            filters: body.filters ?? null,
            timeGrains: body.timeGrains ?? null,
            subject,
          }),
          expires_at: expiresAt,
        },
        trx,
      );
      await this.deps.audit.record(trx, principal, {
        action: 'dashboard.export',
        targetType: 'dashboard',
        targetId: dashboard.id,
        after: {
          deploymentId,
          workbookId: dashboard.workbook_id,
          format: body.format,
          renderAs:
            subject.kind === 'user'
              ? { userId: subject.userId }
              : { embedTenantName: subject.embedTenantName, externalId: subject.externalId },
          filters: body.filters ?? null,
        },
      });
    });
    // Rendered here and now; should this replica die, a scheduler pass elsewhere takes it over.
    if (this.deps.renderOnSubmit)
      void this.process(id).catch((err) => this.log?.warn({ err }, 'dashboard export failed'));
    return { jobId: id, expiresAt: expiresAt.toISOString() };
  }

  async status(
    principal: Principal,
    deploymentId: number,
    jobId: string,
  ): Promise<Static<typeof ExportStatus>> {
    const job = await this.require(principal, deploymentId, jobId);
    return {
      status: job.status,
      progress: job.status === 'completed' ? 100 : null,
      error: job.status === 'failed' ? job.error : null,
      contentType: job.status === 'completed' ? job.content_type : null,
    };
  }

  async download(principal: Principal, deploymentId: number, jobId: string) {
    const job = await this.require(principal, deploymentId, jobId);
    if (job.status === 'failed')
      throw new DomainError('export_failed', `The export failed: ${job.error ?? 'unknown error'}`);
    if (job.status !== 'completed' || !job.file)
      throw new ConflictError(
        `Export ${jobId} is still rendering; poll its status first`,
        'export_not_ready',
      );
    return {
      format: job.format,
      contentType: job.content_type ?? 'application/octet-stream',
      file: job.file,
    };
  }

  /** The scheduler's part: expired jobs removed, orphaned ones rendered. */
  async work(now: Date): Promise<void> {
    await this.deps.exports.deleteExpired(now);
    for (;;) {
      const [job] = await this.deps.exports.claim(null, now, new Date(now.getTime() + leaseMs));
      if (!job) return;
      await this.render(job);
    }
  }

  /** Renders one job if no replica is rendering it. */
  async process(jobId: string): Promise<void> {
    const now = this.clock();
    const [job] = await this.deps.exports.claim(jobId, now, new Date(now.getTime() + leaseMs));
    if (job) await this.render(job);
  }

  private async render(job: DashboardExportRow): Promise<void> {
    const request = job.request as {
      dashboardPublicId: string;
      filters: never;
      timeGrains: never;
      subject: RenderSubject;
    };
    try {
      const file = await this.deps.renderer.render({
        tenantId: job.tenant_id,
        deploymentId: job.deployment_id,
        dashboardPublicId: request.dashboardPublicId,
        subject: request.subject,
        filters: request.filters,
        timeGrains: request.timeGrains,
        format: job.format,
      });
      await this.deps.exports.complete(job.id, file.contentType, file.bytes);
    } catch (error) {
      const message =
        error instanceof RenderError || error instanceof DomainError
          ? error.message
          : 'The dashboard could not be rendered';
      if (!(error instanceof RenderError || error instanceof DomainError))
        this.log?.error({ err: error }, 'dashboard export render failed');
      await this.deps.exports.fail(job.id, message);
    }
  }

  private async require(
    principal: Principal,
    deploymentId: number,
    jobId: string,
  ): Promise<DashboardExportRow> {
    await this.deps.deployments.require(principal.tenantId, deploymentId);
    // A job is only ever visible to whoever started it (the reference).
    const job = await this.deps.exports.find(
      principal.tenantId,
      deploymentId,
      jobId,
      principal.userId,
      this.clock(),
    );
    if (!job) throw new NotFoundError(`Export ${jobId}`, 'export_not_found');
    return job;
  }

  /** The reference's `renderAs` (ExportSubjectInput): tenant admins only. */
  private async subject(principal: Principal, s: NonNullable<Start['renderAs']>): Promise<RenderSubject> {
    if (principal.role !== 'admin')
      throw new ForbiddenError('renderAs needs a tenant administrator', 'insufficient_role');
    const problem = (field: string, message: string) =>
      new ValidationError(`Invalid renderAs: ${field}`, [{ field: `body/renderAs/${field}`, message }]);
    if (s.type === 'USER') {
      if ((s.userId == null) === (s.email == null))
        throw problem('userId', 'give exactly one of userId and email');
      const user =
        s.userId != null
          ? await this.deps.users.find(principal.tenantId, s.userId)
          : await this.deps.users.findByEmail(principal.tenantId, (s.email as string).trim());
      // A deactivated user is not a valid subject (the reference: 404).
      if (!user || user.is_deactivated)
        throw new NotFoundError(`User ${s.userId ?? s.email}`, 'user_not_found');
      return { kind: 'user', userId: user.id };
    }
    if (s.embedTenantName == null) throw problem('embedTenantName', 'is required for EMBED_USER');
    if (s.externalId == null) throw problem('externalId', 'is required for EMBED_USER');
    const context = s.securityContext ?? {};
    for (const key of serverOwnedContextKeys)
      if (key in context) throw problem(`securityContext/${key}`, 'is set by the server');
    const groups = s.groups ?? [];
    if (groups.length > 0) {
      const known = await this.deps.notifications.existingGroups(principal.tenantId, groups);
      const unknown = groups.findIndex((g) => !known.has(g));
      if (unknown >= 0)
        throw problem(`groups/${unknown}`, `"${groups[unknown]}" is not a group of this account`);
    }
    const tenant = await this.deps.embedIdentities.upsertTenant(principal.tenantId, s.embedTenantName, null);
    const user = await this.deps.embedIdentities.upsertUser({
      tenantId: principal.tenantId,
      embedTenantId: tenant.id,
      externalId: s.externalId.trim().toLowerCase(),
      email: s.email ?? null,
      lifetime: { kind: 'keep', ttlSeconds: 7 * 24 * 3600 },
      signsIn: false,
    });
    // Groups, attributes and context apply to this render only, never to the user's stored context.
    return {
      kind: 'embed',
      embedUserId: user.id,
      embedTenantId: tenant.id,
      embedTenantName: tenant.name,
      externalId: user.external_id,
      securityContext: embedSecurityContext({
        callerContext: context,
        groups,
        tenantGroups: [],
        embedTenantName: tenant.name,
        userAttributes: Object.fromEntries((s.userAttributes ?? []).map((a) => [a.name, a.value])),
      }),
    };
  }
}
