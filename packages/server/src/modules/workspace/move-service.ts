import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import type { AuditLog } from '../audit-log/service.ts';
import { tooDeep } from '../folders/service.ts';
import { maxFolderDepth } from '../folders/tree.ts';
import { type AccessContext, contentSubject } from '../permissions/access.ts';
import { hasReportManage } from '../permissions/levels.ts';
import type { AccessResolver } from '../permissions/resolver.ts';
import type { WorkbooksService } from '../workbooks/service.ts';
import { ownerView } from './common.ts';
import { type Item, workspaceItem } from './item.ts';
import { checkDestination } from './placement.ts';
import type { FolderRecords, ReportRecords, WorkbookRecords } from './ports.ts';
import type { MoveBody } from './schemas.ts';

/** A move's content check and the request's credential, which its audit entry names. */
export type Move = { ctx: AccessContext; principal: Principal };

export interface MoveDeps {
  db: Db;
  folders: FolderRecords;
  workbooks: WorkbookRecords;
  workbookViews: WorkbooksService;
  reports: ReportRecords;
  access: AccessResolver;
  /** Issue 22 item 5: each move is recorded in its own transaction. */
  audit: Pick<AuditLog, 'record'>;
}

/**
 * `POST .../workspace/move` (spec 4.2). Every move runs in a transaction that first takes the
 * deployment's tree lock and only then reads the folder tree, so the cycle and depth checks see
 * the tree as it is when the move is written: two parallel moves that would each be fine alone
 * but form a cycle together (A into B, B into A) are serialised, and the second is refused.
 */
export class MoveService {
  constructor(private readonly deps: MoveDeps) {}

  move(principal: Principal, deploymentId: number, input: Static<typeof MoveBody>): Promise<Item> {
    const destination = input.folderId ?? null;
    return this.deps.db.transaction().execute(async (trx) => {
      await this.deps.folders.lockTree(deploymentId, trx);
      const ctx = await this.deps.access.resolve(principal, deploymentId, trx);
      // The audit entry names the request's credential (a content check's subject carries no more).
      return this.moveWithin({ ctx, principal }, input, destination, trx);
    });
  }

  /**
   * One move inside the caller's transaction, which already holds the tree lock (bulk-service.ts
   * moves a batch this way: same checks, same audit entries, one commit or none).
   */
  moveWithin(move: Move, item: { type: Item['type']; id: number }, destination: number | null, trx: Db) {
    if (item.type === 'FOLDER') return this.moveFolder(move, item.id, destination, trx);
    if (item.type === 'WORKBOOK') return this.moveWorkbook(move, item.id, destination, trx);
    return this.moveReport(move, item.id, destination, trx);
  }

  /** One entry per move: the item and the folder it left and entered (null: the root). */
  private recordMove(
    { ctx, principal }: Move,
    targetType: 'folder' | 'workbook' | 'report',
    id: number,
    from: number | null,
    to: number | null,
    trx: Db,
  ) {
    return this.deps.audit.record(trx, principal, {
      action: `${targetType}.move`,
      targetType,
      targetId: id,
      before: { deploymentId: ctx.deploymentId, folderId: from },
      after: { deploymentId: ctx.deploymentId, folderId: to },
    });
  }

  /** Manage on the folder, manage or edit on the new parent; never into itself or below itself. */
  private async moveFolder(move: Move, id: number, destination: number | null, trx: Db): Promise<Item> {
    const { ctx } = move;
    if (!ctx.tree.get(id)) throw new NotFoundError(`Folder ${id}`, 'folder_not_found');
    ctx.require(ctx.folder(id), 'manage', contentSubject('FOLDER', id));
    if (destination !== null && ctx.tree.get(destination) && ctx.tree.isSelfOrDescendant(destination, id)) {
      throw new ValidationError(
        'A folder cannot move into itself or one of its own descendants',
        [{ field: 'body/folderId', message: 'is the folder itself or lies inside it' }],
        'folder_cycle',
      );
    }
    checkDestination(ctx, destination, 'body/folderId');
    if ((destination === null ? 0 : ctx.tree.depth(destination)) + ctx.tree.height(id) > maxFolderDepth)
      throw tooDeep();
    const from = ctx.tree.get(id)?.parent_id ?? null;
    await this.deps.folders.update(id, { parentId: destination, userId: ctx.principal.userId }, trx);
    await this.recordMove(move, 'folder', id, from, destination, trx);
    const row = (await this.deps.folders.find(ctx.deploymentId, id, trx))!;
    return workspaceItem(
      {
        type: 'FOLDER',
        id: row.id,
        deploymentId: row.deployment_id,
        name: row.name,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        meta: null,
        createdBy: row.created_by,
        folderId: row.parent_id,
        slug: null,
        userId: row.created_by,
        user: ownerView(row.created_by, row),
      },
      ctx.tree,
    );
  }

  /** Manage on the workbook, plus edit on the destination folder. */
  private async moveWorkbook(move: Move, id: number, destination: number | null, trx: Db): Promise<Item> {
    const { ctx } = move;
    const row = await this.deps.workbooks.find(ctx.deploymentId, id, trx);
    if (!row) throw new NotFoundError(`Workbook ${id}`, 'workbook_not_found');
    ctx.require(ctx.item('WORKBOOK', row), 'manage', contentSubject('WORKBOOK', id));
    checkDestination(ctx, destination, 'body/folderId');
    await this.deps.workbooks.update(id, { folderId: destination }, trx);
    await this.recordMove(move, 'workbook', id, row.folder_id, destination, trx);
    const moved = await this.deps.workbooks.find(ctx.deploymentId, id, trx);
    return this.deps.workbookViews.fullView(moved!, ctx, trx);
  }

  /** Edit on the report with the report-manage permission, plus edit on the destination folder. */
  private async moveReport(move: Move, id: number, destination: number | null, trx: Db): Promise<Item> {
    const { ctx } = move;
    const row = await this.deps.reports.find(ctx.deploymentId, id, ctx.principal.userId, trx);
    if (!row) throw new NotFoundError(`Report ${id}`, 'report_not_found');
    ctx.require(ctx.item('REPORT', row), 'edit', contentSubject('REPORT', id));
    if (!hasReportManage(ctx.principal.role)) ctx.require(null, 'edit', 'Moving a report (report-manage)');
    checkDestination(ctx, destination, 'body/folderId');
    await this.deps.reports.setFolder(id, destination, trx);
    await this.recordMove(move, 'report', id, row.folder_id, destination, trx);
    const moved = (await this.deps.reports.find(ctx.deploymentId, id, ctx.principal.userId, trx))!;
    return workspaceItem(
      {
        type: 'REPORT',
        id: moved.id,
        deploymentId: moved.deployment_id,
        name: moved.name,
        createdAt: moved.created_at,
        updatedAt: moved.updated_at,
        meta: moved.meta,
        createdBy: moved.created_by,
        folderId: moved.folder_id,
        slug: moved.public_id,
        userId: moved.user_id,
        user: null,
      },
      ctx.tree,
    );
  }
}
