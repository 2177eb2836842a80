import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import { keysetCursor } from '../../pagination/keyset.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { AuditLog } from '../audit-log/service.ts';
import { type AccessContext, contentSubject } from '../permissions/access.ts';
import { atLeast, hasReportManage } from '../permissions/levels.ts';
import { granteeOf } from '../permissions/owner.ts';
import { ownerFields } from '../permissions/owner-privacy.ts';
import type { AccessResolver } from '../permissions/resolver.ts';
import { rootIfZero } from '../workspace/common.ts';
import { publicId } from '../workspace/ids.ts';
import { checkDestination } from '../workspace/placement.ts';
import { upsertByKey } from '../workspace/upsert.ts';
import type { GrantWriter, WorkbookLookup } from './ports.ts';
import type { ReportSort, ReportsRepository, ReportValues, ReportWithOwner } from './repository.ts';
import type { CreateReportBody, Report, ReportsListQuery, UpdateReportBody } from './schemas.ts';
import { checkJsonQuery, normaliseSpec } from './validation.ts';

export interface ReportsServiceDeps {
  db: Db;
  reports: ReportsRepository;
  workbooks: WorkbookLookup;
  permissions: GrantWriter;
  access: AccessResolver;
  /** Issue 22 item 5: each change is recorded in its own transaction. */
  audit: Pick<AuditLog, 'record'>;
}

type Input = Static<typeof CreateReportBody>;

/** Reports: a saved query (SQL-API text or a semantic query) with a Vega-Lite v5 chart. */
export class ReportsService {
  constructor(private readonly deps: ReportsServiceDeps) {}

  async list(principal: Principal, deploymentId: number, query: Static<typeof ReportsListQuery>) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const sort: ReportSort = query.sortBy ?? 'createdAt';
    // Spec 4: a per-viewer sort has no stable cursor column; page numbers are offered instead.
    if (sort === 'lastViewedAt' && (query.first !== undefined || query.after !== undefined)) {
      throw new ValidationError(
        'Cursor pagination is not available when sorting by lastViewedAt; use limit and page',
        [{ field: 'querystring/after', message: 'cannot be used with sortBy=lastViewedAt' }],
        'cursor_unavailable_for_sort',
      );
    }
    const pageQuery: PageQuery =
      query.limit !== undefined || query.page !== undefined
        ? { limit: query.limit ?? 50, offset: ((query.page ?? 1) - 1) * (query.limit ?? 50) }
        : { first: query.first, after: query.after };
    if (pageQuery.offset !== undefined && (query.first !== undefined || query.after !== undefined)) {
      throw new ValidationError('Use either first/after or limit/page, not both', [
        { field: 'querystring', message: 'first/after cannot be combined with limit/page' },
      ]);
    }
    const window = pageWindow(pageQuery, 2);
    const filter = {
      deploymentId,
      viewerId: principal.userId,
      folderId: rootIfZero(query.folderId),
      workbookId: query.workbookId,
      search: query.search,
      visibility: ctx.visibility('REPORT'),
    };
    const direction =
      query.sortDirection === 'ASC'
        ? 'asc'
        : query.sortDirection === 'DESC'
          ? 'desc'
          : sort === 'name'
            ? 'asc'
            : 'desc';
    const [rows, count] = await Promise.all([
      this.deps.reports.list(filter, sort, direction, window),
      this.deps.reports.count(filter),
    ]);
    const page = toPage(rows, window, keysetCursor, (r) => reportView(r, ctx));
    return { ...page, data: page.items, count };
  }

  async get(principal: Principal, deploymentId: number, id: number) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const row = await this.require(deploymentId, id, principal.userId);
    ctx.require(ctx.item('REPORT', row), 'view', contentSubject('REPORT', id));
    // Last-viewed times are kept per account user (report_views); an embed user has none.
    if (!principal.embed) await this.deps.reports.recordView(id, principal.userId);
    return reportView(await this.require(deploymentId, id, principal.userId), ctx);
  }

  async create(principal: Principal, deploymentId: number, input: Input) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    checkDestination(ctx, input.folderId ?? null, 'body/folderId');
    await this.checkWorkbook(ctx, input.workbookId ?? null);
    const id = await this.uniquePublicId(() =>
      this.deps.db.transaction().execute((trx) => this.insertWithin(ctx, principal, input, trx)),
    );
    return reportView(await this.require(deploymentId, id, principal.userId), ctx);
  }

  /**
   * `create` (with a publicId) in the caller's transaction, for content kept as code
   * (modules/content); `ctx` is resolved in that transaction.
   */
  async createWithin(ctx: AccessContext, principal: Principal, input: Input, trx: Db): Promise<number> {
    checkDestination(ctx, input.folderId ?? null, 'body/folderId');
    await this.checkWorkbook(ctx, input.workbookId ?? null, trx);
    return this.insertWithin(ctx, principal, input, trx);
  }

  /** `update`'s checks and writes in the caller's transaction (content apply). */
  async updateWithin(
    ctx: AccessContext,
    principal: Principal,
    row: ReportWithOwner,
    input: Input,
    trx: Db,
  ): Promise<void> {
    await this.checkUpdate(ctx, row, input, trx);
    await this.writeUpdate(ctx, principal, row, input, trx);
  }

  /** A report owned by the caller, who gets manage on it, with its audit entry. */
  private async insertWithin(ctx: AccessContext, principal: Principal, input: Input, trx: Db) {
    const deploymentId = ctx.deploymentId;
    const values = this.values(input);
    const created = await this.deps.reports.insert(
      deploymentId,
      ctx.owner(),
      { ...values, name: values.name ?? 'Untitled report', publicId: input.publicId ?? publicId() },
      trx,
    );
    await this.deps.permissions.upsert(
      deploymentId,
      { type: 'REPORT', id: created },
      granteeOf(ctx.owner()),
      'manage',
      trx,
    );
    await this.deps.audit.record(trx, principal, {
      action: 'report.create',
      targetType: 'report',
      targetId: created,
      after: {
        deploymentId,
        name: values.name ?? 'Untitled report',
        title: values.title ?? null,
        folderId: values.folderId ?? null,
        workbookId: values.workbookId ?? null,
      } satisfies ReportAuditFields,
    });
    return created;
  }

  async update(
    principal: Principal,
    deploymentId: number,
    id: number,
    input: Static<typeof UpdateReportBody>,
  ) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const row = await this.require(deploymentId, id, principal.userId);
    await this.deps.db.transaction().execute(async (trx) => {
      await this.checkUpdate(ctx, row, input, trx);
      await this.writeUpdate(ctx, principal, row, input, trx);
    });
    return reportView(await this.require(deploymentId, id, principal.userId), ctx);
  }

  /**
   * `PUT .../reports/by-public-id/{publicId}` (issue 25 item 4, the reference's upsertReportByPublicId):
   * the report holding the publicId is updated as `update` does (edit access), or one is created with
   * it as `create` does. Which of the two, and its access check, is decided in the transaction that
   * writes (workspace/upsert.ts for concurrent requests).
   */
  async upsertByPublicId(principal: Principal, deploymentId: number, key: string, input: Input) {
    if (input.publicId && input.publicId !== key)
      throw new ValidationError('The body publicId differs from the one in the path', [
        { field: 'body/publicId', message: 'must equal the publicId in the path, or be left out' },
      ]);
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const id = await upsertByKey(() =>
      this.deps.db.transaction().execute(async (trx) => {
        const row = await this.deps.reports.findByPublicId(deploymentId, key, principal.userId, trx);
        if (row) {
          await this.checkUpdate(ctx, row, input, trx);
          await this.writeUpdate(ctx, principal, row, input, trx);
          return row.id;
        }
        checkDestination(ctx, input.folderId ?? null, 'body/folderId');
        await this.checkWorkbook(ctx, input.workbookId ?? null, trx);
        return this.insertWithin(ctx, principal, { ...input, publicId: key }, trx);
      }),
    );
    return reportView(await this.require(deploymentId, id, principal.userId), ctx);
  }

  /** Edit access; a change of folder is a move (spec 4.2); publicId is write-once (the reference). */
  private async checkUpdate(ctx: AccessContext, row: ReportWithOwner, input: Input, trx: Db) {
    ctx.require(ctx.item('REPORT', row), 'edit', contentSubject('REPORT', row.id));
    if (input.folderId !== undefined && input.folderId !== row.folder_id) {
      if (!hasReportManage(ctx.principal.role)) ctx.require(null, 'edit', 'Moving a report (report-manage)');
      checkDestination(ctx, input.folderId, 'body/folderId');
    }
    if (input.workbookId !== undefined && input.workbookId !== row.workbook_id)
      await this.checkWorkbook(ctx, input.workbookId, trx);
    // The reference: publicId is write-once; changing an existing one is a 400, a taken one a 409.
    if (input.publicId && input.publicId !== row.public_id) {
      throw new ValidationError('A report publicId cannot be changed', [
        { field: 'body/publicId', message: 'is write-once' },
      ]);
    }
  }

  private async writeUpdate(
    ctx: AccessContext,
    principal: Principal,
    row: ReportWithOwner,
    input: Input,
    trx: Db,
  ) {
    const { id } = row;
    const deploymentId = ctx.deploymentId;
    const values = this.values(input);
    await this.deps.reports.update(id, values, trx);
    const pick = <T>(next: T | undefined, was: T) => (next === undefined ? was : next);
    await this.deps.audit.record(trx, principal, {
      action: 'report.update',
      targetType: 'report',
      targetId: id,
      before: reportAuditFields(row),
      after: {
        deploymentId,
        name: pick(values.name, row.name),
        title: pick(values.title, row.title),
        folderId: pick(values.folderId, row.folder_id),
        workbookId: pick(values.workbookId, row.workbook_id),
        // The query and chart are content, not settings: the entry says that they changed.
        ...(values.sqlQuery !== undefined || values.jsonQuery !== undefined ? { queryChanged: true } : {}),
        ...(values.spec !== undefined ? { specChanged: true } : {}),
      },
    });
  }

  async delete(principal: Principal, deploymentId: number, id: number) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    await this.deps.db.transaction().execute((trx) => this.deleteWithin(ctx, principal, id, trx));
    return { success: true };
  }

  /** Manage access; inside the caller's transaction (also workspace bulk-delete). */
  async deleteWithin(ctx: AccessContext, principal: Principal, id: number, trx: Db): Promise<void> {
    const row = await this.require(ctx.deploymentId, id, principal.userId, trx);
    ctx.require(ctx.item('REPORT', row), 'manage', contentSubject('REPORT', id));
    await this.deps.reports.delete(ctx.deploymentId, id, trx);
    await this.deps.audit.record(trx, principal, {
      action: 'report.delete',
      targetType: 'report',
      targetId: id,
      before: reportAuditFields(row),
    });
  }

  private values(input: Input): ReportValues {
    if (input.jsonQuery) checkJsonQuery(input.jsonQuery);
    return {
      name: input.name ?? undefined,
      title: input.title,
      description: input.description,
      sqlQuery: input.sqlQuery,
      jsonQuery: input.jsonQuery,
      spec: input.spec === undefined ? undefined : normaliseSpec(input.spec),
      columnFormats: input.preferences === undefined ? undefined : (input.preferences?.columnFormats ?? null),
      fillMissingRows: input.fillMissingRows,
      meta: input.meta,
      folderId: input.folderId,
      workbookId: input.workbookId,
    };
  }

  private async checkWorkbook(ctx: AccessContext, workbookId: number | null, db?: Db) {
    if (workbookId === null) return;
    const missing = () =>
      new ValidationError(`Workbook ${workbookId} is not a workbook of this deployment`, [
        { field: 'body/workbookId', message: 'is not a workbook of this deployment' },
      ]);
    const workbook = await this.deps.workbooks.find(ctx.deploymentId, workbookId, db);
    if (!workbook) throw missing();
    // One the caller may not see answers as one that does not exist (AccessContext.require).
    ctx.require(ctx.item('WORKBOOK', workbook), 'edit', { name: `Workbook ${workbookId}`, missing });
  }

  private async uniquePublicId<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if ((error as { code?: string }).code === '23505') {
        throw new ConflictError('Another report already uses this publicId', 'report_public_id_taken');
      }
      throw error;
    }
  }

  async require(deploymentId: number, id: number, viewerId: number, db?: Db): Promise<ReportWithOwner> {
    const row = await this.deps.reports.find(deploymentId, id, viewerId, db);
    if (!row) throw new NotFoundError(`Report ${id}`, 'report_not_found');
    return row;
  }
}

interface ReportAuditFields {
  deploymentId: number;
  name: string;
  title: string | null;
  folderId: number | null;
  workbookId: number | null;
}

/** What an audit entry says of a report: where it is and what it is called, not its query. */
function reportAuditFields(row: ReportWithOwner): ReportAuditFields {
  return {
    deploymentId: row.deployment_id,
    name: row.name,
    title: row.title,
    folderId: row.folder_id,
    workbookId: row.workbook_id,
  };
}

export function reportView(row: ReportWithOwner, ctx: AccessContext): Static<typeof Report> {
  const level = ctx.item('REPORT', row);
  return {
    id: row.id,
    deploymentId: row.deployment_id,
    publicId: row.public_id,
    type: 'REPORT',
    name: row.name,
    title: row.title,
    description: row.description,
    sqlQuery: row.sql_query,
    jsonQuery: row.json_query,
    spec: (row.spec as Record<string, unknown> | null) ?? null,
    kind: row.kind,
    preferences: { columnFormats: row.column_formats },
    fillMissingRows: row.fill_missing_rows,
    meta: row.meta,
    folderId: row.folder_id,
    workbookId: row.workbook_id,
    folderPath: ctx.tree.path(row.folder_id),
    version: row.version,
    ...ownerFields(ctx, row),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    lastViewedAt: row.last_viewed_at?.toISOString() ?? null,
    canEdit: atLeast(level, 'edit'),
    canManage: atLeast(level, 'manage'),
  };
}
