import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import type { ContentLevel, ContentPermissionRow } from '../../db/schema.ts';
import { NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import type { AuditLog } from '../audit-log/service.ts';
import { type AccessContext, contentSubject } from './access.ts';
import { showsGrantee } from './owner-privacy.ts';
import type { GroupLookup, ReportLookup, UserLookup, WorkbookLookup } from './ports.ts';
import type { ContentTarget, PermissionsRepository } from './repository.ts';
import type { AccessResolver } from './resolver.ts';
import type { GrantBody, Permission } from './schemas.ts';

export interface PermissionsServiceDeps {
  permissions: PermissionsRepository;
  users: UserLookup;
  groups: GroupLookup;
  workbooks: WorkbookLookup;
  reports: ReportLookup;
  access: AccessResolver;
  db: Db;
  /** Issue 22 item 5: each grant and revocation is recorded in its own transaction. */
  audit: Pick<AuditLog, 'record'>;
}

/**
 * Granting, changing and revoking content permissions. Who has access is visible
 * to anyone who can view the item; changing it takes manage access on the item.
 */
export class PermissionsService {
  constructor(private readonly deps: PermissionsServiceDeps) {}

  async list(principal: Principal, deploymentId: number, target: ContentTarget) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    ctx.require(await this.levelOn(ctx, target), 'view', contentSubject(target.type, target.id));
    const grants = await this.deps.permissions.list(target);
    return { items: grants.filter((g) => showsGrantee(ctx, g)).map(permissionView) };
  }

  async grant(principal: Principal, deploymentId: number, input: Static<typeof GrantBody>) {
    const target = { type: input.type, id: input.id };
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const { level, space } = await this.placeOf(ctx, target);
    ctx.require(level, 'manage', contentSubject(target.type, target.id));
    const named = [input.userId, input.groupId, input.embedGroupId].filter((id) => id !== undefined);
    if (named.length !== 1) {
      throw new ValidationError('Grant to exactly one user or one group', [
        { field: 'body/userId', message: 'send exactly one of userId, groupId and embedGroupId' },
      ]);
    }
    if (input.embedGroupId !== undefined)
      await this.checkEmbedGroup(principal.tenantId, input.embedGroupId, space);
    else if (principal.embed) {
      // Spec 4.3 rules 1 and 2: in creator mode only the tenant's own groups exist; global groups
      // and account users are not shown there, so they cannot be shared with either.
      const field = input.userId !== undefined ? 'body/userId' : 'body/groupId';
      throw new ValidationError('Creator mode shares only with groups of its embed tenant', [
        { field, message: 'creator mode shares with embedGroupId (a group of its embed tenant) only' },
      ]);
    } else await this.checkGrantee(principal.tenantId, input);
    return this.deps.db.transaction().execute(async (trx) => {
      const row = await this.deps.permissions.upsert(
        deploymentId,
        target,
        { userId: input.userId, groupId: input.groupId, embedGroupId: input.embedGroupId },
        input.level as ContentLevel,
        trx,
      );
      const after = permissionView(row);
      await this.deps.audit.record(trx, principal, {
        action: 'permission.grant',
        targetType: 'permission',
        targetId: row.id,
        after: { deploymentId, ...after },
      });
      return after;
    });
  }

  async revoke(principal: Principal, deploymentId: number, permissionId: number) {
    const missing = () => new NotFoundError(`Permission ${permissionId}`, 'permission_not_found');
    const row = await this.deps.permissions.find(deploymentId, permissionId);
    if (!row) throw missing();
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const view = permissionView(row);
    const level = await this.levelOn(ctx, { type: view.type, id: view.objectId });
    // A grant on an item the caller may not see is as unknown as no grant at all (spec 4.3 rule 2).
    if (ctx.hides(level)) throw missing();
    ctx.require(level, 'manage', contentSubject(view.type, view.objectId));
    await this.deps.db.transaction().execute(async (trx) => {
      await this.deps.permissions.delete(deploymentId, permissionId, trx);
      await this.deps.audit.record(trx, principal, {
        action: 'permission.revoke',
        targetType: 'permission',
        targetId: permissionId,
        before: { deploymentId, ...view },
      });
    });
    return { success: true };
  }

  /**
   * A grant to an account user or group in the caller's transaction (content kept as code,
   * modules/content): manage access on the item, a grantee of the account, its audit entry.
   */
  async grantWithin(
    ctx: AccessContext,
    principal: Principal,
    target: ContentTarget,
    grantee: { userId: number } | { groupId: number },
    level: ContentLevel,
    trx: Db,
  ) {
    const { level: mine } = await this.placeOf(ctx, target, trx);
    ctx.require(mine, 'manage', contentSubject(target.type, target.id));
    await this.checkGrantee(principal.tenantId, grantee, trx);
    const row = await this.deps.permissions.upsert(ctx.deploymentId, target, grantee, level, trx);
    await this.deps.audit.record(trx, principal, {
      action: 'permission.grant',
      targetType: 'permission',
      targetId: row.id,
      after: { deploymentId: ctx.deploymentId, ...permissionView(row) },
    });
  }

  /** `revoke` of a grant read in the caller's transaction (content apply). */
  async revokeWithin(ctx: AccessContext, principal: Principal, row: ContentPermissionRow, trx: Db) {
    const view = permissionView(row);
    const { level } = await this.placeOf(ctx, { type: view.type, id: view.objectId }, trx);
    ctx.require(level, 'manage', contentSubject(view.type, view.objectId));
    await this.deps.permissions.delete(ctx.deploymentId, row.id, trx);
    await this.deps.audit.record(trx, principal, {
      action: 'permission.revoke',
      targetType: 'permission',
      targetId: row.id,
      before: { deploymentId: ctx.deploymentId, ...view },
    });
  }

  /** The caller's level on an item; 404 when the item is not in this deployment. */
  private async levelOn(ctx: AccessContext, target: ContentTarget): Promise<ContentLevel | null> {
    return (await this.placeOf(ctx, target)).level;
  }

  /** The caller's level on an item and the embed tenant space it lives in (null: none). */
  private async placeOf(ctx: AccessContext, target: ContentTarget, db?: Db) {
    if (target.type === 'FOLDER') {
      if (!ctx.tree.get(target.id)) throw contentSubject('FOLDER', target.id).missing();
      return { level: ctx.folder(target.id), space: null };
    }
    const row =
      target.type === 'WORKBOOK'
        ? await this.deps.workbooks.find(ctx.deploymentId, target.id, db)
        : await this.deps.reports.find(ctx.deploymentId, target.id, ctx.principal.userId, db);
    if (!row) throw contentSubject(target.type, target.id).missing();
    return { level: ctx.item(target.type, row), space: row.embed_tenant_id };
  }

  /**
   * Spec 4.3 rule 2: an embed tenant group shares inside its own tenant's space only, so a group of
   * another tenant (or any tenant group, for content outside every tenant space) is refused.
   */
  private async checkEmbedGroup(tenantId: number, embedGroupId: number, space: number | null) {
    const groupTenant = await this.deps.permissions.embedGroupTenant(tenantId, embedGroupId);
    if (groupTenant === undefined || groupTenant !== space) {
      throw new ValidationError(`Unknown embed tenant group ${embedGroupId}`, [
        { field: 'body/embedGroupId', message: "is not a group of the item's embed tenant" },
      ]);
    }
  }

  /** The grantee must be a user or a global group of the caller's account. */
  private async checkGrantee(tenantId: number, input: { userId?: number; groupId?: number }, db?: Db) {
    const isUser = input.userId !== undefined;
    const id = input.userId ?? input.groupId!;
    const found = isUser
      ? await this.deps.users.find(tenantId, id, db)
      : await this.deps.groups.find(tenantId, id, db);
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
    embedUserId: row.embed_user_id,
    embedGroupId: row.embed_group_id,
    level: row.level,
    createdAt: row.created_at.toISOString(),
  };
}
