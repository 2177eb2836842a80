import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import type { AuditLog } from '../audit-log/service.ts';
import { type AccessContext, contentSubject } from '../permissions/access.ts';
import type { AccessResolver } from '../permissions/resolver.ts';
import type { WorkbookWithOwner } from '../workbooks/records.ts';
import { publicId } from '../workspace/ids.ts';
import { reportRefs, validateForPublish } from './config.ts';
import type { ReportRecords, WorkbookRecords } from './ports.ts';
import type { DashboardsRepository, NewSnapshot } from './repository.ts';
import type { PublishBody, WorkbookDashboardBody } from './schemas.ts';
import { publishedView } from './view.ts';

export interface DashboardsServiceDeps {
  db: Db;
  dashboards: DashboardsRepository;
  workbooks: WorkbookRecords;
  reports: ReportRecords;
  access: AccessResolver;
  /** Issue 22 item 5: each change is recorded in its own transaction. */
  audit: Pick<AuditLog, 'record'>;
}

export interface PublishOptions {
  title?: string | null;
  description?: string | null;
  allowEmbed?: boolean | null;
  dashboardId?: number | null;
  fromShared?: boolean;
  /** Where a problem in the config is reported: `body/config` or `workbook/dashboardDraft`. */
  field: string;
}

/** The draft dashboard of a workbook and publishing it (spec 4.4). */
export class DashboardsService {
  constructor(private readonly deps: DashboardsServiceDeps) {}

  async updateDraft(
    principal: Principal,
    deploymentId: number,
    workbookId: number,
    body: Static<typeof WorkbookDashboardBody>,
  ) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const workbook = await this.requireWorkbook(deploymentId, workbookId);
    ctx.require(ctx.item('WORKBOOK', workbook), 'edit', contentSubject('WORKBOOK', workbookId));
    if (body.dashboardDraft !== undefined) {
      await this.deps.db.transaction().execute(async (trx) => {
        await this.deps.workbooks.update(
          workbookId,
          { dashboardDraft: body.dashboardDraft as Record<string, unknown> | null },
          trx,
        );
        // The draft is content: the entry says whether there was one and whether there is one.
        await this.deps.audit.record(trx, principal, {
          action: 'dashboard.save_draft',
          targetType: 'workbook',
          targetId: workbookId,
          before: { deploymentId, workbookId, hasDraft: workbook.dashboard_draft !== null },
          after: { deploymentId, workbookId, hasDraft: body.dashboardDraft !== null },
        });
      });
    }
    const published = await this.deps.dashboards.current(workbookId);
    return {
      dashboardDraft:
        body.dashboardDraft !== undefined ? (body.dashboardDraft ?? null) : workbook.dashboard_draft,
      dashboardPublished: published?.version.config ?? null,
    };
  }

  async publish(
    principal: Principal,
    deploymentId: number,
    workbookId: number,
    body: Static<typeof PublishBody>,
  ) {
    if (body.workbookId !== workbookId) {
      throw new ValidationError('workbookId in the body must equal the one in the path', [
        { field: 'body/workbookId', message: `must equal ${workbookId}` },
      ]);
    }
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const workbook = await this.requireWorkbook(deploymentId, workbookId);
    ctx.require(ctx.item('WORKBOOK', workbook), 'edit', contentSubject('WORKBOOK', workbookId));
    const config = body.config ?? workbook.dashboard_draft;
    if (!config) {
      throw new ValidationError(
        'Nothing to publish: send a config or save a dashboard draft first',
        [{ field: 'body/config', message: 'is required when the workbook has no dashboard draft' }],
        'nothing_to_publish',
      );
    }
    const field = body.config ? 'body/config' : 'workbook/dashboardDraft';
    return this.deps.db.transaction().execute(async (trx) => {
      const before = await this.deps.dashboards.current(workbookId, trx);
      const published = await this.publishConfig(ctx, workbook, config, { ...body, field }, trx);
      const shape = (p: typeof published) => ({
        deploymentId,
        workbookId,
        dashboardId: p.id,
        versionNumber: p.versionNumber,
        title: p.title,
        allowEmbed: p.allowEmbed,
      });
      await this.deps.audit.record(trx, principal, {
        action: 'dashboard.publish',
        targetType: 'dashboard',
        targetId: published.id,
        before: before ? shape(publishedView(before)) : null,
        after: shape(published),
      });
      return published;
    });
  }

  /**
   * Publishes `config` as the next version of the workbook's dashboard, snapshotting every report
   * its widgets use (spec 2.3: spec, SQL or semantic query, meta, preferences, fill-missing-rows) so that later
   * edits of a report do not change what viewers of this version see. Runs in the caller's
   * transaction; the dashboard row lock orders parallel publishes (repository.ts).
   */
  async publishConfig(
    ctx: AccessContext,
    workbook: WorkbookWithOwner,
    raw: Record<string, unknown>,
    options: PublishOptions,
    trx: Db,
  ) {
    const config = validateForPublish(raw, options.field);
    const refs = reportRefs(config);
    for (const [id, index] of refs) {
      if (!Number.isInteger(id)) throw badReport(options.field, index, 'must be an integer report id');
    }
    const reports = await this.deps.reports.findMany(ctx.deploymentId, [...refs.keys()], trx);
    for (const [id, index] of refs) {
      const missing = () => badReport(options.field, index, 'is not a report of this deployment');
      const report = reports.find((r) => r.id === id);
      if (!report) throw missing();
      // One the caller may not see answers as one that does not exist (AccessContext.require).
      ctx.require(ctx.item('REPORT', report), 'view', { name: `Report ${id}`, missing });
    }
    const dashboard = await this.deps.dashboards.lockDashboard(
      {
        deploymentId: ctx.deploymentId,
        workbookId: workbook.id,
        publicId: publicId(16),
        userId: ctx.owner().userId,
        fromShared: options.fromShared ?? false,
      },
      trx,
    );
    if (options.dashboardId != null && options.dashboardId !== dashboard.id) {
      throw new ValidationError(`Dashboard ${options.dashboardId} is not the dashboard of this workbook`, [
        { field: 'body/dashboardId', message: `must be ${dashboard.id} or omitted` },
      ]);
    }
    if (options.allowEmbed != null)
      await this.deps.dashboards.setAllowEmbed(dashboard.id, options.allowEmbed, trx);
    const snapshots: NewSnapshot[] = reports.map((r) => ({
      report_id: r.id,
      version_number: r.version,
      name: r.name,
      title: r.title,
      description: r.description,
      kind: r.kind,
      spec: r.spec,
      sql_query: r.sql_query,
      semantic_query: r.json_query || null,
      meta: r.meta,
      preferences: { columnFormats: r.column_formats },
      fill_missing_rows: r.fill_missing_rows,
    }));
    await this.deps.dashboards.addVersion(
      dashboard.id,
      {
        title: options.title ?? config.title ?? workbook.name,
        description: options.description ?? config.description ?? null,
        config,
        userId: ctx.owner().userId,
      },
      snapshots,
      trx,
    );
    const published = await this.deps.dashboards.current(workbook.id, trx);
    return publishedView(published!);
  }

  private async requireWorkbook(deploymentId: number, workbookId: number) {
    const workbook = await this.deps.workbooks.find(deploymentId, workbookId);
    if (!workbook) throw new NotFoundError(`Workbook ${workbookId}`, 'workbook_not_found');
    return workbook;
  }
}

function badReport(field: string, index: number, message: string) {
  return new ValidationError(
    `Widget ${index} names an unusable report`,
    [{ field: `${field}/widgets/${index}/config/reportId`, message }],
    'invalid_widget_report',
  );
}
