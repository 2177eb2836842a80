import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import { keysetCursor } from '../../pagination/keyset.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { AuditLog } from '../audit-log/service.ts';
import { type AccessContext, contentSubject } from '../permissions/access.ts';
import type { AccessResolver } from '../permissions/resolver.ts';
import { ownerView, rootIfZero } from '../workspace/common.ts';
import type { GrantWriter } from './ports.ts';
import type { FoldersRepository, FolderWithOwner } from './repository.ts';
import type { CreateFolderBody, Folder, UpdateFolderBody } from './schemas.ts';
import { type FolderTree, maxFolderDepth } from './tree.ts';

export interface FoldersServiceDeps {
  db: Db;
  folders: FoldersRepository;
  permissions: GrantWriter;
  access: AccessResolver;
  /** Issue 22 item 5: each change is recorded in its own transaction. */
  audit: Pick<AuditLog, 'record'>;
}

/** Folders (spec 4.5 for delete). Moving a folder is workspace/move-service.ts. */
export class FoldersService {
  constructor(private readonly deps: FoldersServiceDeps) {}

  async list(principal: Principal, deploymentId: number, query: PageQuery & { parentId?: number }) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const parentId = rootIfZero(query.parentId) ?? null;
    if (parentId !== null) this.inTree(ctx, parentId);
    const visible = ctx.isAdmin ? null : (ctx.visibility('FOLDER')?.folderIds ?? []);
    const window = pageWindow(query, 2);
    const [rows, count] = await Promise.all([
      this.deps.folders.list(deploymentId, parentId, visible, window),
      this.deps.folders.count(deploymentId, parentId, visible),
    ]);
    const page = toPage(rows, window, keysetCursor, (r) => folderView(r, ctx.tree));
    return { ...page, data: page.items, count };
  }

  /** Root first, the folder itself last (the reference's breadcrumb order). */
  async ancestors(principal: Principal, deploymentId: number, folderId: number) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    this.inTree(ctx, folderId);
    ctx.require(ctx.folder(folderId), 'view', contentSubject('FOLDER', folderId));
    const chain = ctx.tree.ancestors(folderId);
    const rows = await Promise.all(chain.map((f) => this.deps.folders.find(deploymentId, f.id)));
    return rows.filter((r) => r !== undefined).map((r) => folderView(r, ctx.tree));
  }

  async create(principal: Principal, deploymentId: number, input: Static<typeof CreateFolderBody>) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const parentId = input.parentId ?? null;
    if (parentId === null) {
      if (!ctx.canWriteRoot()) ctx.require(null, 'edit', 'The workspace root');
    } else {
      if (!ctx.tree.get(parentId)) throw notAFolder('body/parentId', parentId);
      ctx.require(ctx.folder(parentId), 'edit', contentSubject('FOLDER', parentId));
      if (ctx.tree.depth(parentId) + 1 > maxFolderDepth) throw tooDeep();
    }
    const id = await this.deps.db
      .transaction()
      .execute((trx) =>
        this.insertWithin(
          principal,
          deploymentId,
          { parentId, name: input.name, position: input.position ?? 0 },
          trx,
        ),
      );
    return folderView(await this.require(deploymentId, id), ctx.tree);
  }

  /**
   * `create`'s checks and writes in the caller's transaction, for content kept as code (modules/content):
   * `ctx` must have been resolved in that transaction, so that folders it created are in its tree.
   */
  async createWithin(
    ctx: AccessContext,
    principal: Principal,
    input: { parentId: number | null; name: string; position: number },
    trx: Db,
  ): Promise<number> {
    if (input.parentId === null) {
      if (!ctx.canWriteRoot()) ctx.require(null, 'edit', 'The workspace root');
    } else {
      if (!ctx.tree.get(input.parentId)) throw notAFolder('body/parentId', input.parentId);
      ctx.require(ctx.folder(input.parentId), 'edit', contentSubject('FOLDER', input.parentId));
      if (ctx.tree.depth(input.parentId) + 1 > maxFolderDepth) throw tooDeep();
    }
    return this.insertWithin(principal, ctx.deploymentId, input, trx);
  }

  private async insertWithin(
    principal: Principal,
    deploymentId: number,
    input: { parentId: number | null; name: string; position: number },
    trx: Db,
  ): Promise<number> {
    const created = await this.deps.folders.insert({ deploymentId, ...input, userId: principal.userId }, trx);
    // Creators manage what they create.
    await this.deps.permissions.upsert(
      deploymentId,
      { type: 'FOLDER', id: created },
      { userId: principal.userId },
      'manage',
      trx,
    );
    await this.deps.audit.record(trx, principal, {
      action: 'folder.create',
      targetType: 'folder',
      targetId: created,
      after: { deploymentId, ...input },
    });
    return created;
  }

  async update(
    principal: Principal,
    deploymentId: number,
    folderId: number,
    input: Static<typeof UpdateFolderBody>,
  ) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    await this.deps.db
      .transaction()
      .execute((trx) =>
        this.updateWithin(
          ctx,
          principal,
          folderId,
          { name: input.name ?? undefined, position: input.position ?? undefined },
          trx,
        ),
      );
    return folderView(await this.require(deploymentId, folderId), ctx.tree);
  }

  /** `update`'s checks and writes in the caller's transaction (also content apply). */
  async updateWithin(
    ctx: AccessContext,
    principal: Principal,
    folderId: number,
    changes: { name?: string; position?: number },
    trx: Db,
  ): Promise<void> {
    const deploymentId = ctx.deploymentId;
    const before = await this.require(deploymentId, folderId, trx);
    ctx.require(ctx.folder(folderId), 'edit', contentSubject('FOLDER', folderId));
    await this.deps.folders.update(folderId, { ...changes, userId: principal.userId }, trx);
    await this.deps.audit.record(trx, principal, {
      action: 'folder.update',
      targetType: 'folder',
      targetId: folderId,
      before: { deploymentId, name: before.name, position: before.position },
      after: {
        deploymentId,
        name: changes.name ?? before.name,
        position: changes.position ?? before.position,
      },
    });
  }

  /**
   * Spec 4.5: manage access; 400 while child folders remain; workbooks and reports inside go back
   * to the root. Under the tree lock so that a concurrent move cannot put a folder into it.
   */
  async delete(principal: Principal, deploymentId: number, folderId: number): Promise<void> {
    await this.deps.db.transaction().execute(async (trx) => {
      await this.deps.folders.lockTree(deploymentId, trx);
      const ctx = await this.deps.access.resolve(principal, deploymentId, trx);
      await this.deleteWithin(ctx, principal, folderId, trx);
    });
  }

  /** The checks and writes of `delete`, in a transaction that already holds the tree lock (also bulk-delete). */
  async deleteWithin(ctx: AccessContext, principal: Principal, folderId: number, trx: Db): Promise<void> {
    const deploymentId = ctx.deploymentId;
    if (!ctx.tree.get(folderId)) throw new NotFoundError(`Folder ${folderId}`, 'folder_not_found');
    ctx.require(ctx.folder(folderId), 'manage', contentSubject('FOLDER', folderId));
    if (await this.deps.folders.hasChildren(folderId, trx)) {
      throw new ValidationError(
        'The folder still has child folders; delete or move them first',
        [{ field: 'params/folderId', message: 'has child folders' }],
        'folder_not_empty',
      );
    }
    const before = ctx.tree.get(folderId);
    await this.deps.folders.deleteDetaching(folderId, trx);
    await this.deps.audit.record(trx, principal, {
      action: 'folder.delete',
      targetType: 'folder',
      targetId: folderId,
      before: { deploymentId, name: before?.name ?? null, parentId: before?.parent_id ?? null },
    });
  }

  private inTree(ctx: AccessContext, folderId: number) {
    if (!ctx.tree.get(folderId)) throw new NotFoundError(`Folder ${folderId}`, 'folder_not_found');
  }

  private async require(deploymentId: number, folderId: number, db?: Db): Promise<FolderWithOwner> {
    const row = await this.deps.folders.find(deploymentId, folderId, db);
    if (!row) throw new NotFoundError(`Folder ${folderId}`, 'folder_not_found');
    return row;
  }
}

export function notAFolder(field: string, id: number) {
  return new ValidationError(
    `Folder ${id} is not a folder of this deployment`,
    [{ field, message: 'is not a folder of this deployment' }],
    'invalid_folder',
  );
}

export function tooDeep() {
  return new ValidationError(
    `Folders nest at most ${maxFolderDepth} levels deep`,
    [{ field: 'body', message: `folders nest at most ${maxFolderDepth} levels deep` }],
    'folder_too_deep',
  );
}

export function folderView(row: FolderWithOwner, tree: FolderTree): Static<typeof Folder> {
  return {
    id: row.id,
    deploymentId: row.deployment_id,
    name: row.name,
    type: 'FOLDER',
    parentId: row.parent_id,
    position: row.position,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    user: ownerView(row.created_by, row),
    folderPath: tree.path(row.parent_id),
  };
}
