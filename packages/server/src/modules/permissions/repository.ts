import type { Db } from '../../db/database.ts';
import type { ContentLevel, ContentPermissionRow } from '../../db/schema.ts';
import type { ContentTarget, ContentType, Grantee } from './content.ts';

export { type ContentTarget, type ContentType, contentTypes, type Grantee } from './content.ts';

const granteeColumn = {
  userId: 'user_id',
  groupId: 'group_id',
  embedUserId: 'embed_user_id',
  embedGroupId: 'embed_group_id',
} as const;

function granteeOf(grantee: Grantee): [(typeof granteeColumn)[keyof Grantee], number] {
  for (const key of Object.keys(granteeColumn) as (keyof Grantee)[]) {
    const id = grantee[key];
    if (id !== undefined) return [granteeColumn[key], id];
  }
  throw new Error('A grant needs a grantee');
}

/** Whose grants `grantsReaching` reads: a user's or an embed user's. */
export type GrantMember = { userId: number } | { embedUserId: number };

/** Where each kind of member's grants are: its own column, its groups' column and memberships. */
const reach = {
  user: { direct: 'user_id', viaGroup: 'group_id', memberships: 'group_members', memberColumn: 'user_id' },
  embedUser: {
    direct: 'embed_user_id',
    viaGroup: 'embed_group_id',
    memberships: 'embed_group_members',
    memberColumn: 'embed_user_id',
  },
} as const;

const column = {
  FOLDER: 'folder_id',
  WORKBOOK: 'workbook_id',
  REPORT: 'report_id',
} as const satisfies Record<ContentType, string>;

/** Grants of content permissions to users and groups; plain Kysely, no rules. */
export class PermissionsRepository {
  constructor(private readonly db: Db) {}

  /**
   * Every grant in a deployment that reaches a user or an embed user: granted to them directly or
   * to one of their groups (embed tenant groups for an embed user, migration 0015).
   */
  grantsReaching(
    deploymentId: number,
    member: GrantMember,
    db: Db = this.db,
  ): Promise<ContentPermissionRow[]> {
    const [kind, id] =
      'userId' in member ? (['user', member.userId] as const) : (['embedUser', member.embedUserId] as const);
    const { direct, viaGroup, memberships, memberColumn } = reach[kind];
    return db
      .selectFrom('content_permissions')
      .selectAll()
      .where('deployment_id', '=', deploymentId)
      .where((eb) =>
        eb.or([
          eb(direct, '=', id),
          eb(viaGroup, 'in', eb.selectFrom(memberships).select('group_id').where(memberColumn, '=', id)),
        ]),
      )
      .execute();
  }

  /** Workbooks shared with an embed tenant or with every embed user (embed_access, migration 0008). */
  async sharedWithEmbedTenant(
    deploymentId: number,
    embedTenantId: number,
    db: Db = this.db,
  ): Promise<number[]> {
    const rows = await db
      .selectFrom('embed_access')
      .select('workbook_id')
      .where('deployment_id', '=', deploymentId)
      .where((eb) => eb.or([eb('embed_tenant_id', 'is', null), eb('embed_tenant_id', '=', embedTenantId)]))
      .execute();
    return rows.map((r) => r.workbook_id);
  }

  /** The embed tenant of an embed tenant group; undefined when no such group exists in the account. */
  async embedGroupTenant(tenantId: number, embedGroupId: number): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('embed_groups as g')
      .innerJoin('embed_tenants as t', 't.id', 'g.embed_tenant_id')
      .select('g.embed_tenant_id')
      .where('t.tenant_id', '=', tenantId)
      .where('g.id', '=', embedGroupId)
      .executeTakeFirst();
    return row?.embed_tenant_id;
  }

  list(target: ContentTarget): Promise<ContentPermissionRow[]> {
    return this.db
      .selectFrom('content_permissions')
      .selectAll()
      .where(column[target.type], '=', target.id)
      .orderBy('id')
      .execute();
  }

  find(deploymentId: number, id: number): Promise<ContentPermissionRow | undefined> {
    return this.db
      .selectFrom('content_permissions')
      .selectAll()
      .where('deployment_id', '=', deploymentId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Grants or changes a level; one row per (object, grantee) thanks to the unique index. */
  async upsert(
    deploymentId: number,
    target: ContentTarget,
    grantee: Grantee,
    level: ContentLevel,
    db: Db = this.db,
  ): Promise<ContentPermissionRow> {
    const [granteeCol, granteeId] = granteeOf(grantee);
    const existing = await db
      .selectFrom('content_permissions')
      .select('id')
      .where(column[target.type], '=', target.id)
      .where(granteeCol, '=', granteeId)
      .executeTakeFirst();
    if (existing) {
      return db
        .updateTable('content_permissions')
        .set({ level })
        .where('id', '=', existing.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    }
    return db
      .insertInto('content_permissions')
      .values({
        deployment_id: deploymentId,
        folder_id: target.type === 'FOLDER' ? target.id : null,
        workbook_id: target.type === 'WORKBOOK' ? target.id : null,
        report_id: target.type === 'REPORT' ? target.id : null,
        user_id: grantee.userId ?? null,
        group_id: grantee.groupId ?? null,
        embed_user_id: grantee.embedUserId ?? null,
        embed_group_id: grantee.embedGroupId ?? null,
        level,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async delete(deploymentId: number, id: number, db: Db = this.db): Promise<boolean> {
    const r = await db
      .deleteFrom('content_permissions')
      .where('deployment_id', '=', deploymentId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }
}
