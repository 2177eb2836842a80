import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { AuditLog } from '../audit-log/service.ts';
import { publishedView } from '../dashboards/view.ts';
import { type AccessContext, contentSubject } from '../permissions/access.ts';
import { granteeOf } from '../permissions/owner.ts';
import { ownerFields, showsOwnerOf } from '../permissions/owner-privacy.ts';
import type { AccessResolver } from '../permissions/resolver.ts';
import { rootIfZero } from '../workspace/common.ts';
import { workspaceItem } from '../workspace/item.ts';
import { checkDestination } from '../workspace/placement.ts';
import { upsertByKey } from '../workspace/upsert.ts';
import type { GrantWriter, PublishedDashboards } from './ports.ts';
import type { WorkbooksRepository, WorkbookWithOwner } from './repository.ts';
import type { CreateWorkbookBody, UpdateWorkbookBody, Workbook } from './schemas.ts';

export interface WorkbooksServiceDeps {
  db: Db;
  workbooks: WorkbooksRepository;
  dashboards: PublishedDashboards;
  permissions: GrantWriter;
  access: AccessResolver;
  /** Issue 22 item 5: creations, changes and removals are recorded in their transaction. */
  audit: Pick<AuditLog, 'record'>;
}

type Draft = Record<string, unknown> | null;

/** What an update may change: the API's fields, and calculated fields for content apply. */
type WorkbookChanges = Static<typeof UpdateWorkbookBody> & { calculatedFields?: Record<string, unknown> };

/** Workbooks; duplicating is duplicate.ts, moving also workspace/move-service.ts. */
export class WorkbooksService {
  constructor(private readonly deps: WorkbooksServiceDeps) {}

  async list(principal: Principal, deploymentId: number, query: PageQuery & { folderId?: number }) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const window = pageWindow(query, 1);
    const filter = {
      deploymentId,
      folderId: rootIfZero(query.folderId),
      visibility: ctx.visibility('WORKBOOK'),
    };
    const [rows, count] = await Promise.all([
      this.deps.workbooks.list(filter, window),
      this.deps.workbooks.count(filter),
    ]);
    const page = toPage(
      rows,
      window,
      (r) => [r.id],
      (r) => workbookView(r, ctx),
    );
    return { ...page, data: page.items, count };
  }

  async get(principal: Principal, deploymentId: number, id: number) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const row = await this.require(deploymentId, id);
    ctx.require(ctx.item('WORKBOOK', row), 'view', contentSubject('WORKBOOK', id));
    return this.fullView(row, ctx);
  }

  async create(principal: Principal, deploymentId: number, input: Static<typeof CreateWorkbookBody>) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const folderId = input.folderId ?? null;
    checkDestination(ctx, folderId, 'body/folderId');
    const name = input.name ?? 'Untitled workbook';
    const id = await this.deps.db.transaction().execute(async (trx) => {
      const created = await this.insertOwned(
        ctx,
        {
          folderId,
          name,
          meta: input.meta ?? {},
          calculatedFields: input.calculatedFields ?? {},
          dashboardDraft: (input.dashboardDraft as Draft | undefined) ?? null,
        },
        trx,
      );
      await this.deps.audit.record(trx, principal, {
        action: 'workbook.create',
        targetType: 'workbook',
        targetId: created,
        after: { deploymentId, name, folderId },
      });
      return created;
    });
    return this.fullView(await this.require(deploymentId, id), ctx);
  }

  /** Creates a workbook owned by the caller, who gets manage on it. */
  async insertOwned(
    ctx: AccessContext,
    input: {
      folderId: number | null;
      name: string;
      meta: Record<string, unknown>;
      calculatedFields: Record<string, unknown>;
      dashboardDraft: Draft;
      slug?: string;
    },
    trx: Db,
  ): Promise<number> {
    const owner = ctx.owner();
    const id = await this.deps.workbooks.insert({ deploymentId: ctx.deploymentId, ...owner, ...input }, trx);
    await this.deps.permissions.upsert(
      ctx.deploymentId,
      { type: 'WORKBOOK', id },
      granteeOf(owner),
      'manage',
      trx,
    );
    return id;
  }

  /**
   * The reference's updateWorkbook: renaming, meta, slug and the draft need edit access; a request
   * with `folderId` is a move and needs manage on the workbook plus edit on the destination (spec 4.2).
   */
  async update(
    principal: Principal,
    deploymentId: number,
    id: number,
    input: Static<typeof UpdateWorkbookBody>,
  ) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const row = await this.require(deploymentId, id);
    this.checkUpdate(ctx, row, input);
    await this.deps.db.transaction().execute((trx) => this.writeUpdate(ctx, principal, row, input, trx));
    return this.fullView(await this.require(deploymentId, id), ctx);
  }

  /**
   * `PUT .../workbooks/by-slug/{slug}` (issue 25 item 4, the reference's upsertWorkbookBySlug): the
   * workbook holding the slug is updated as `update` does (only the fields sent; `meta` merged into
   * what it has), or one is created with the slug as `create` does. Which of the two, and its access
   * check, is decided in the transaction that writes (workspace/upsert.ts for concurrent requests).
   */
  async upsertBySlug(
    principal: Principal,
    deploymentId: number,
    rawSlug: string,
    input: Static<typeof CreateWorkbookBody>,
  ) {
    const slug = normaliseSlug(rawSlug);
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const id = await upsertByKey(() =>
      this.deps.db.transaction().execute(async (trx) => {
        const row = await this.deps.workbooks.findBySlug(deploymentId, slug, trx);
        if (row) {
          const changes = {
            name: input.name ?? undefined,
            folderId: input.folderId,
            meta: input.meta ? { ...row.meta, ...input.meta } : undefined,
            dashboardDraft: input.dashboardDraft,
          };
          this.checkUpdate(ctx, row, changes);
          await this.writeUpdate(ctx, principal, row, changes, trx);
          return row.id;
        }
        const folderId = input.folderId ?? null;
        checkDestination(ctx, folderId, 'body/folderId');
        const name = input.name ?? 'Untitled workbook';
        const created = await this.insertOwned(
          ctx,
          {
            folderId,
            name,
            slug,
            meta: input.meta ?? {},
            calculatedFields: input.calculatedFields ?? {},
            dashboardDraft: (input.dashboardDraft as Draft | undefined) ?? null,
          },
          trx,
        );
        await this.deps.audit.record(trx, principal, {
          action: 'workbook.create',
          targetType: 'workbook',
          targetId: created,
          after: { deploymentId, name, folderId, slug },
        });
        return created;
      }),
    );
    return this.fullView(await this.require(deploymentId, id), ctx);
  }

  /**
   * `create` in the caller's transaction with a slug (content kept as code, modules/content): the
   * same placement check, owner grant and audit entry. `ctx` is resolved in that transaction.
   */
  async createWithin(
    ctx: AccessContext,
    principal: Principal,
    input: {
      folderId: number | null;
      name: string;
      slug: string;
      meta: Record<string, unknown>;
      calculatedFields: Record<string, unknown>;
      dashboardDraft: Draft;
    },
    trx: Db,
  ): Promise<number> {
    checkDestination(ctx, input.folderId, 'body/folderId');
    const created = await this.insertOwned(ctx, input, trx);
    await this.deps.audit.record(trx, principal, {
      action: 'workbook.create',
      targetType: 'workbook',
      targetId: created,
      after: { deploymentId: ctx.deploymentId, name: input.name, folderId: input.folderId, slug: input.slug },
    });
    return created;
  }

  /** `update`'s checks and writes in the caller's transaction (content apply). */
  async updateWithin(
    ctx: AccessContext,
    principal: Principal,
    row: WorkbookWithOwner,
    input: WorkbookChanges,
    trx: Db,
  ): Promise<void> {
    this.checkUpdate(ctx, row, input);
    await this.writeUpdate(ctx, principal, row, input, trx);
  }

  /** Edit access; a request with `folderId` is a move and needs manage plus edit on the destination (spec 4.2). */
  private checkUpdate(
    ctx: AccessContext,
    row: WorkbookWithOwner,
    input: Pick<Static<typeof UpdateWorkbookBody>, 'folderId'>,
  ) {
    const level = ctx.item('WORKBOOK', row);
    ctx.require(level, 'edit', contentSubject('WORKBOOK', row.id));
    if (input.folderId !== undefined) {
      ctx.require(level, 'manage', `Moving workbook ${row.id}`);
      checkDestination(ctx, input.folderId, 'body/folderId');
    }
  }

  private async writeUpdate(
    ctx: AccessContext,
    principal: Principal,
    row: WorkbookWithOwner,
    input: WorkbookChanges,
    trx: Db,
  ) {
    const { id } = row;
    const deploymentId = ctx.deploymentId;
    const changes = {
      name: input.name ?? undefined,
      meta: input.meta ?? undefined,
      calculatedFields: input.calculatedFields,
      slug: input.slug,
      folderId: input.folderId,
      dashboardDraft: input.dashboardDraft as Draft | undefined,
      draftSavedBy: ctx.owner().userId,
    };
    await this.deps.workbooks.update(id, changes, trx);
    // The draft itself is content, not settings: the entry says that it changed, not what it holds.
    const shape = (w: { name: string; slug: string | null; folderId: number | null }) => ({
      deploymentId,
      ...w,
    });
    await this.deps.audit.record(trx, principal, {
      action: 'workbook.update',
      targetType: 'workbook',
      targetId: id,
      before: shape({ name: row.name, slug: row.slug, folderId: row.folder_id }),
      after: {
        ...shape({
          name: changes.name ?? row.name,
          slug: changes.slug === undefined ? row.slug : changes.slug,
          folderId: changes.folderId === undefined ? row.folder_id : changes.folderId,
        }),
        ...(changes.meta !== undefined ? { metaChanged: true } : {}),
        ...(changes.calculatedFields !== undefined ? { calculatedFieldsChanged: true } : {}),
        ...(changes.dashboardDraft !== undefined ? { draftChanged: true } : {}),
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
    const deploymentId = ctx.deploymentId;
    const row = await this.require(deploymentId, id, trx);
    ctx.require(ctx.item('WORKBOOK', row), 'manage', contentSubject('WORKBOOK', id));
    // A published dashboard has no delete of its own: it goes with its workbook, and says so.
    const published = await this.deps.dashboards.current(id, trx);
    await this.deps.workbooks.delete(deploymentId, id, trx);
    await this.deps.audit.record(trx, principal, {
      action: 'workbook.delete',
      targetType: 'workbook',
      targetId: id,
      before: { deploymentId, name: row.name, folderId: row.folder_id },
    });
    if (published)
      await this.deps.audit.record(trx, principal, {
        action: 'dashboard.delete',
        targetType: 'dashboard',
        targetId: published.dashboard.id,
        before: {
          deploymentId,
          workbookId: id,
          versionNumber: published.version.version_number,
          title: published.version.title,
        },
      });
  }

  async require(deploymentId: number, id: number, db?: Db): Promise<WorkbookWithOwner> {
    const row = await this.deps.workbooks.find(deploymentId, id, db);
    if (!row) throw new NotFoundError(`Workbook ${id}`, 'workbook_not_found');
    return row;
  }

  /** Spec 2.1 with `dashboardPublished` and `publishedDashboard` (single reads only). */
  async fullView(row: WorkbookWithOwner, ctx: AccessContext, db?: Db): Promise<Static<typeof Workbook>> {
    const published = await this.deps.dashboards.current(row.id, db);
    const dashboard = published ? publishedView(published) : null;
    return {
      ...workbookView(row, ctx),
      dashboardPublished: published?.version.config ?? null,
      // Its publisher is an owner identity too (owner-privacy.ts).
      publishedDashboard:
        dashboard && !showsOwnerOf(ctx, row) ? { ...dashboard, createdBy: null } : dashboard,
    };
  }
}

export function workbookView(row: WorkbookWithOwner, ctx: AccessContext): Static<typeof Workbook> {
  const item = workspaceItem(
    {
      type: 'WORKBOOK',
      id: row.id,
      deploymentId: row.deployment_id,
      name: row.name,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      calculatedFields: row.calculated_fields,
      meta: row.meta,
      folderId: row.folder_id,
      slug: row.slug,
      ...ownerFields(ctx, row),
    },
    ctx.tree,
  );
  return { ...item, dashboardDraft: row.dashboard_draft, dashboardDraftVersion: row.draft_version };
}

/** The reference: a slug is trimmed and lowercased before matching; then it must be a valid slug. */
export function normaliseSlug(raw: string): string {
  const slug = raw.trim().toLowerCase();
  if (!/^[a-z0-9][a-z0-9-]*$/.test(slug) || slug.length > 255)
    throw new ValidationError('A slug is 1 to 255 lowercase letters, digits and hyphens', [
      {
        field: 'params/slug',
        message: 'must be letters, digits and hyphens, starting with a letter or digit',
      },
    ]);
  return slug;
}
