import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { ContentLevel, ContentPermissionRow } from '../../db/schema.ts';
import { NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import type { GroupsRepository } from '../groups/repository.ts';
import type { ReportsRepository } from '../reports/repository.ts';
import type { UsersRepository } from '../users/repository.ts';
import type { WorkbooksRepository } from '../workbooks/repository.ts';
import type { AccessContext } from './access.ts';
import type { ContentTarget, PermissionsRepository } from './repository.ts';
import type { AccessResolver } from './resolver.ts';
import type { GrantBody, Permission } from './schemas.ts';

export interface PermissionsServiceDeps {
  permissions: PermissionsRepository;
  users: UsersRepository;
  groups: GroupsRepository;
  workbooks: WorkbooksRepository;
  reports: ReportsRepository;
  access: AccessResolver;
}

/**
 * Granting, changing and revoking content permissions. Who has access is visible
 * to anyone who can view the item; changing it takes manage access on the item.
 */
export class PermissionsService {
  constructor(private readonly deps: PermissionsServiceDeps) {}

  async list(principal: Principal, deploymentId: number, target: ContentTarget) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    ctx.require(await this.levelOn(ctx, target), 'view', `${target.type} ${target.id}`);
    return { items: (await this.deps.permissions.list(target)).map(permissionView) };
  }

  async grant(principal: Principal, deploymentId: number, input: Static<typeof GrantBody>) {
    const target = { type: input.type, id: input.id };
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    ctx.require(await this.levelOn(ctx, target), 'manage', `${target.type} ${target.id}`);
    if ((input.userId === undefined) === (input.groupId === undefined)) {
      throw new ValidationError('Grant to exactly one user or one group', [
        { field: 'body/userId', message: 'send exactly one of userId and groupId' },
      ]);
    }
    await this.checkGrantee(principal.tenantId, input);
    const row = await this.deps.permissions.upsert(
      deploymentId,
      target,
      { userId: input.userId, groupId: input.groupId },
      input.level as ContentLevel,
    );
    return permissionView(row);
  }

  async revoke(principal: Principal, deploymentId: number, permissionId: number) {
    const row = await this.deps.permissions.find(deploymentId, permissionId);
    if (!row) throw new NotFoundError(`Permission ${permissionId}`, 'permission_not_found');
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const view = permissionView(row);
    ctx.require(
      await this.levelOn(ctx, { type: view.type, id: view.objectId }),
      'manage',
      `${view.type} ${view.objectId}`,
    );
    await this.deps.permissions.delete(deploymentId, permissionId);
    return { success: true };
  }

  /** The caller's level on an item; 404 when the item is not in this deployment. */
  private async levelOn(ctx: AccessContext, target: ContentTarget): Promise<ContentLevel | null> {
    if (target.type === 'FOLDER') {
      if (!ctx.tree.get(target.id)) throw new NotFoundError(`Folder ${target.id}`, 'folder_not_found');
      return ctx.folder(target.id);
    }
    const row =
      target.type === 'WORKBOOK'
        ? await this.deps.workbooks.find(ctx.deploymentId, target.id)
        : await this.deps.reports.find(ctx.deploymentId, target.id, ctx.principal.userId);
    if (!row) throw new NotFoundError(`${target.type === 'WORKBOOK' ? 'Workbook' : 'Report'} ${target.id}`);
    return ctx.item(target.type, row);
  }

  /** The grantee must be a user or a global group of the caller's account. */
  private async checkGrantee(tenantId: number, input: { userId?: number; groupId?: number }) {
    const isUser = input.userId !== undefined;
    const id = input.userId ?? input.groupId!;
    const found = isUser
      ? await this.deps.users.find(tenantId, id)
      : await this.deps.groups.find(tenantId, id);
    if (!found) {
      throw new ValidationError(`Unknown ${isUser ? 'user' : 'group'} ${id}`, [
        { field: isUser ? 'body/userId' : 'body/groupId', message: 'is not a user or group of this account' },
      ]);
    }
  }
}

function permissionView(row: ContentPermissionRow): Static<typeof Permission> {
  const [type, objectId] =
    row.folder_id !== null
      ? (['FOLDER', row.folder_id] as const)
      : row.workbook_id !== null
        ? (['WORKBOOK', row.workbook_id] as const)
        : (['REPORT', row.report_id!] as const);
  return {
    id: row.id,
    type,
    objectId,
    userId: row.user_id,
    groupId: row.group_id,
    level: row.level,
    createdAt: row.created_at.toISOString(),
  };
}
