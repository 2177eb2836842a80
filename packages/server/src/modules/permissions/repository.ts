import type { Db } from '../../db/database.ts';
import type { ContentLevel, ContentPermissionRow } from '../../db/schema.ts';

export const contentTypes = ['FOLDER', 'WORKBOOK', 'REPORT'] as const;
export type ContentType = (typeof contentTypes)[number];

export interface ContentTarget {
  type: ContentType;
  id: number;
}

export interface Grantee {
  userId?: number;
  groupId?: number;
}

const column = {
  FOLDER: 'folder_id',
  WORKBOOK: 'workbook_id',
  REPORT: 'report_id',
} as const satisfies Record<ContentType, string>;

/** Grants of content permissions to users and groups; plain Kysely, no rules. */
export class PermissionsRepository {
  constructor(private readonly db: Db) {}

  /** Every grant in a deployment that reaches a user, directly or through one of their groups. */
  grantsReaching(deploymentId: number, userId: number, db: Db = this.db): Promise<ContentPermissionRow[]> {
    return db
      .selectFrom('content_permissions')
      .selectAll()
      .where('deployment_id', '=', deploymentId)
      .where((eb) =>
        eb.or([
          eb('user_id', '=', userId),
          eb(
            'group_id',
            'in',
            eb.selectFrom('group_members').select('group_id').where('user_id', '=', userId),
          ),
        ]),
      )
      .execute();
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
    const existing = await db
      .selectFrom('content_permissions')
      .select('id')
      .where(column[target.type], '=', target.id)
      .where(grantee.userId !== undefined ? 'user_id' : 'group_id', '=', grantee.userId ?? grantee.groupId!)
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
        level,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async delete(deploymentId: number, id: number): Promise<boolean> {
    const r = await this.db
      .deleteFrom('content_permissions')
      .where('deployment_id', '=', deploymentId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }
}
