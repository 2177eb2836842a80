import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { AuditLog } from '../audit-log/service.ts';
import { type AccessContext, contentSubject } from '../permissions/access.ts';
import { showsOwnerOf } from '../permissions/owner-privacy.ts';
import type { AccessResolver } from '../permissions/resolver.ts';
import type { WorkbookWithOwner } from '../workbooks/records.ts';
import { publicId } from '../workspace/ids.ts';
import { reportRefs, validateForPublish } from './config.ts';
import type { ReportRecords, WorkbookRecords } from './ports.ts';
import type { DashboardsRepository, NewSnapshot, VersionSummary } from './repository.ts';
import type {
  DashboardVersionSummary,
  PublishBody,
  RestoreVersionBody,
  WorkbookDashboardBody,
} from './schemas.ts';
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

  /**
   * Saves the draft (issue 23 item 1). With an expected version (`expectedDraftVersion`, or
   * `ifMatch` from the `If-Match` header), a draft saved by someone else since is not overwritten:
   * 409 `draft_version_conflict`, naming who saved it and when, so that the editor can say why.
   */
  async updateDraft(
    principal: Principal,
    deploymentId: number,
    workbookId: number,
    body: Static<typeof WorkbookDashboardBody>,
    ifMatch?: string,
  ) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const workbook = await this.requireWorkbook(deploymentId, workbookId);
    ctx.require(ctx.item('WORKBOOK', workbook), 'edit', contentSubject('WORKBOOK', workbookId));
    const expected = expectedVersion(body.expectedDraftVersion, ifMatch);
    if (body.dashboardDraft !== undefined) {
      await this.save(
        principal,
        ctx,
        workbook,
        (body.dashboardDraft ?? null) as Record<string, unknown> | null,
        expected,
      );
    } else if (expected !== null && expected !== workbook.draft_version) {
      throw await this.conflict(workbook);
    }
    return this.draftView(deploymentId, workbookId);
  }

  /** The published versions of the dashboard, oldest first (view access). */
  async versions(principal: Principal, deploymentId: number, workbookId: number, query: PageQuery) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const workbook = await this.requireWorkbook(deploymentId, workbookId);
    ctx.require(ctx.item('WORKBOOK', workbook), 'view', contentSubject('WORKBOOK', workbookId));
    const window = pageWindow(query, 1);
    const rows = await this.deps.dashboards.listVersions(workbookId, window);
    const owners = showsOwnerOf(ctx, workbook);
    const page = toPage(
      rows,
      window,
      (r) => [r.id],
      (r) => versionSummary(r, owners),
    );
    return { ...page, data: page.items };
  }

  /** One published version as a published dashboard (spec 2.3), to open it (view access). */
  async version(principal: Principal, deploymentId: number, workbookId: number, versionNumber: number) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const workbook = await this.requireWorkbook(deploymentId, workbookId);
    ctx.require(ctx.item('WORKBOOK', workbook), 'view', contentSubject('WORKBOOK', workbookId));
    const view = publishedView(await this.requireVersion(workbookId, versionNumber));
    return showsOwnerOf(ctx, workbook) ? view : { ...view, createdBy: null };
  }

  /**
   * Makes a published version's config the draft again (edit access), as a save of the draft:
   * counted, and refused with 409 when `expectedDraftVersion` is stale. Publishing is left to the
   * editor, so that the restored draft can be looked at (and its diff) first.
   */
  async restore(
    principal: Principal,
    deploymentId: number,
    workbookId: number,
    versionNumber: number,
    body: Static<typeof RestoreVersionBody> | undefined,
    ifMatch?: string,
  ) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const workbook = await this.requireWorkbook(deploymentId, workbookId);
    ctx.require(ctx.item('WORKBOOK', workbook), 'edit', contentSubject('WORKBOOK', workbookId));
    const expected = expectedVersion(body?.expectedDraftVersion, ifMatch);
    const version = await this.requireVersion(workbookId, versionNumber);
    await this.save(principal, ctx, workbook, version.version.config as Record<string, unknown>, expected, {
      restoredVersion: versionNumber,
    });
    return this.draftView(deploymentId, workbookId);
  }

  /**
   * One save of the draft with its audit entry, in one transaction (issue 22 item 5). The draft is
   * content: the entry says whether there was one and whether there is one, and its version.
   */
  private async save(
    principal: Principal,
    ctx: AccessContext,
    workbook: WorkbookWithOwner,
    draft: Record<string, unknown> | null,
    expected: number | null,
    extra: Record<string, unknown> = {},
  ) {
    const { deployment_id: deploymentId, id: workbookId } = workbook;
    const saved = await this.deps.db.transaction().execute(async (trx) => {
      const version = await this.deps.workbooks.saveDraft(
        workbookId,
        draft,
        expected,
        ctx.owner().userId,
        trx,
      );
      if (version === null) return null;
      await this.deps.audit.record(trx, principal, {
        action: 'dashboard.save_draft',
        targetType: 'workbook',
        targetId: workbookId,
        before: { deploymentId, workbookId, hasDraft: workbook.dashboard_draft !== null },
        after: { deploymentId, workbookId, hasDraft: draft !== null, draftVersion: version, ...extra },
      });
      return version;
    });
    if (saved === null) throw await this.conflict(workbook);
  }

  private async conflict(workbook: WorkbookWithOwner) {
    const now = await this.requireWorkbook(workbook.deployment_id, workbook.id);
    const saver = await this.deps.workbooks.draftSaver(now.id);
    const who = saver ? saver.first_name || saver.email : 'another editor';
    // Minutes are enough to tell which save it was; UTC, since the server knows no reader's zone.
    const when = now.draft_saved_at
      ? ` at ${now.draft_saved_at.toISOString().slice(0, 16).replace('T', ' ')} UTC`
      : '';
    return new ConflictError(
      `The draft was saved by ${who}${when} since you opened it (it is now version ${now.draft_version}): ` +
        'reload it to see their changes, then edit again',
      'draft_version_conflict',
    );
  }

  private async draftView(deploymentId: number, workbookId: number) {
    const workbook = await this.requireWorkbook(deploymentId, workbookId);
    const [published, saver] = await Promise.all([
      this.deps.dashboards.current(workbookId),
      this.deps.workbooks.draftSaver(workbookId),
    ]);
    return {
      dashboardDraft: workbook.dashboard_draft,
      dashboardPublished: published?.version.config ?? null,
      dashboardDraftVersion: workbook.draft_version,
      dashboardDraftSavedAt: workbook.draft_saved_at?.toISOString() ?? null,
      dashboardDraftSavedBy: saver ? { id: saver.id, email: saver.email, firstName: saver.first_name } : null,
    };
  }

  private async requireVersion(workbookId: number, versionNumber: number) {
    const found = await this.deps.dashboards.atVersion(workbookId, versionNumber);
    if (!found)
      throw new NotFoundError(`Version ${versionNumber} of this dashboard`, 'dashboard_version_not_found');
    return found;
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
    return this.deps.db
      .transaction()
      .execute((trx) => this.publishWithin(principal, ctx, workbook, config, { ...body, field }, trx));
  }

  /** `publishConfig` with the audit entry of a publish, in the caller's transaction (also content apply). */
  async publishWithin(
    principal: Principal,
    ctx: AccessContext,
    workbook: WorkbookWithOwner,
    config: Record<string, unknown>,
    options: PublishOptions,
    trx: Db,
  ) {
    const deploymentId = ctx.deploymentId;
    const workbookId = workbook.id;
    ctx.require(ctx.item('WORKBOOK', workbook), 'edit', contentSubject('WORKBOOK', workbookId));
    const before = await this.deps.dashboards.current(workbookId, trx);
    const published = await this.publishConfig(ctx, workbook, config, options, trx);
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

/** The expected draft version from the body or from `If-Match` (`"3"`, `W/"3"` or `3`); the body wins. */
function expectedVersion(fromBody: number | null | undefined, ifMatch: string | undefined): number | null {
  if (fromBody !== undefined && fromBody !== null) return fromBody;
  if (ifMatch === undefined || ifMatch.trim() === '*') return null;
  const match = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(ifMatch);
  if (!match) {
    throw new ValidationError('If-Match must name a draft version', [
      { field: 'headers/if-match', message: 'must be a draft version number, such as "3"' },
    ]);
  }
  return Number(match[1]);
}

function versionSummary(r: VersionSummary, owners: boolean): Static<typeof DashboardVersionSummary> {
  const widgets = (r.config as { widgets?: unknown }).widgets;
  return {
    versionId: r.id,
    versionNumber: r.version_number,
    status: r.status,
    title: r.title,
    description: r.description,
    createdAt: r.created_at.toISOString(),
    createdBy: owners ? r.created_by : null,
    createdByUser:
      owners && r.created_by !== null && r.publisher_email !== null
        ? { id: r.created_by, email: r.publisher_email, firstName: r.publisher_first_name }
        : null,
    widgetCount: Array.isArray(widgets) ? widgets.length : 0,
  };
}

function badReport(field: string, index: number, message: string) {
  return new ValidationError(
    `Widget ${index} names an unusable report`,
    [{ field: `${field}/widgets/${index}/config/reportId`, message }],
    'invalid_widget_report',
  );
}
