import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import type { ReportRow } from '../../db/schema.ts';
import { ValidationError } from '../../errors/domain-errors.ts';
import type { AuditLog } from '../audit-log/service.ts';
import { repoint } from '../dashboards/config.ts';
import type { DashboardsService } from '../dashboards/service.ts';
import { type AccessContext, contentSubject } from '../permissions/access.ts';
import { atLeast } from '../permissions/levels.ts';
import { granteeOf } from '../permissions/owner.ts';
import type { AccessResolver } from '../permissions/resolver.ts';
import { publicId } from '../workspace/ids.ts';
import type { GrantWriter, PublishedDashboards, ReportCopies } from './ports.ts';
import type { WorkbooksRepository } from './repository.ts';
import type { WorkbooksService } from './service.ts';

export interface DuplicateDeps {
  db: Db;
  workbooks: WorkbooksService;
  workbookRows: WorkbooksRepository;
  reports: ReportCopies;
  dashboards: PublishedDashboards;
  publishing: DashboardsService;
  permissions: GrantWriter;
  access: AccessResolver;
  /** Issue 22 item 5: the copy is recorded in its own transaction. */
  audit: Pick<AuditLog, 'record'>;
}

interface ReportCopy {
  reportId: number;
  name: string | null;
  title: string | null;
  description: string | null;
  spec: unknown;
  sqlQuery: string | null;
  jsonQuery: string | null;
  meta: Record<string, unknown> | null;
  columnFormats: Record<string, unknown> | null;
  fillMissingRows: ReportRow['fill_missing_rows'];
}

/**
 * `POST .../workbooks/{id}/duplicate` (spec 4 and 9, 0.1.2; rules from the reference): a
 * self-contained copy owned by the caller, its reports copied and every widget re-pointed at the
 * copies; no grants of the source are copied and embedding starts disabled. With `shared`, the
 * copy is built from the published dashboard (its report snapshots) and placed at the root.
 */
export class WorkbookDuplicator {
  constructor(private readonly deps: DuplicateDeps) {}

  async duplicate(principal: Principal, deploymentId: number, id: number, shared: boolean) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const source = await this.deps.workbooks.require(deploymentId, id);
    ctx.require(ctx.item('WORKBOOK', source), 'view', contentSubject('WORKBOOK', id));
    // A creator reads a workbook shared with embed users only as published: it clones it from the
    // shared workspace (the reference), never its live reports or unpublished draft.
    if (principal.embed && !shared && source.embed_tenant_id !== principal.embed.embedTenantId) {
      throw new ValidationError('A workbook shared with embed users is cloned from the shared workspace', [
        { field: 'body/shared', message: 'must be true for a workbook of the shared workspace' },
      ]);
    }
    const published = await this.deps.dashboards.current(id);
    if (shared && !published) {
      throw new ValidationError(
        'Only a workbook with a published dashboard can be cloned from the shared workspace',
        [{ field: 'body/shared', message: 'the workbook has no published dashboard' }],
        'not_published',
      );
    }
    // With edit access to the source's folder the copy sits beside it; otherwise at the root.
    const folderId =
      !shared && source.folder_id !== null && atLeast(ctx.folder(source.folder_id), 'edit')
        ? source.folder_id
        : null;
    const newId = await this.deps.db.transaction().execute(async (trx) => {
      const copyId = await this.deps.workbooks.insertOwned(
        ctx,
        {
          folderId,
          name: `Copy of ${source.name}`,
          meta: source.meta,
          calculatedFields: source.calculated_fields,
          dashboardDraft: null,
        },
        trx,
      );
      const originals: ReportCopy[] = shared
        ? published!.snapshots.map((s) => ({
            reportId: s.report_id,
            name: s.name,
            title: s.title,
            description: s.description,
            spec: s.spec,
            sqlQuery: s.sql_query,
            jsonQuery: s.json_query,
            meta: s.meta,
            columnFormats: (s.preferences?.columnFormats as Record<string, unknown> | undefined) ?? null,
            fillMissingRows: s.fill_missing_rows,
          }))
        : (await this.deps.reports.ofWorkbook(id, trx)).map((r) => ({
            reportId: r.id,
            name: r.name,
            title: r.title,
            description: r.description,
            spec: r.spec,
            sqlQuery: r.sql_query,
            jsonQuery: r.json_query,
            meta: r.meta,
            columnFormats: r.column_formats,
            fillMissingRows: r.fill_missing_rows,
          }));
      const copies = await this.copyReports(ctx, originals, copyId, folderId, trx);
      const draft = shared ? published!.version.config : source.dashboard_draft;
      await this.deps.workbookRows.update(copyId, { dashboardDraft: repoint(draft, copies) }, trx);
      if (published) {
        const row = await this.deps.workbooks.require(deploymentId, copyId, trx);
        // Re-read access inside the transaction: the caller now manages the copied reports.
        const fresh = await this.deps.access.resolve(principal, deploymentId, trx);
        await this.deps.publishing.publishConfig(
          fresh,
          row,
          repoint(published.version.config, copies)!,
          {
            title: published.version.title,
            description: published.version.description,
            fromShared: shared,
            field: 'source/publishedDashboard/config',
          },
          trx,
        );
      }
      await this.deps.audit.record(trx, principal, {
        action: 'workbook.duplicate',
        targetType: 'workbook',
        targetId: copyId,
        after: {
          deploymentId,
          name: `Copy of ${source.name}`,
          folderId,
          sourceWorkbookId: id,
          fromShared: shared,
          reportIds: [...copies.values()],
        },
      });
      return copyId;
    });
    return this.deps.workbooks.fullView(await this.deps.workbooks.require(deploymentId, newId), ctx);
  }

  private async copyReports(
    ctx: AccessContext,
    originals: ReportCopy[],
    workbookId: number,
    folderId: number | null,
    trx: Db,
  ) {
    const copies = new Map<number, number>();
    for (const r of originals) {
      const id = await this.deps.reports.insert(
        ctx.deploymentId,
        ctx.owner(),
        {
          name: r.name ?? 'Untitled report',
          publicId: publicId(),
          title: r.title,
          description: r.description,
          spec: r.spec,
          sqlQuery: r.sqlQuery,
          jsonQuery: r.jsonQuery,
          meta: r.meta,
          columnFormats: r.columnFormats,
          fillMissingRows: r.fillMissingRows,
          folderId,
          workbookId,
        },
        trx,
      );
      await this.deps.permissions.upsert(
        ctx.deploymentId,
        { type: 'REPORT', id },
        granteeOf(ctx.owner()),
        'manage',
        trx,
      );
      copies.set(r.reportId, id);
    }
    return copies;
  }
}
