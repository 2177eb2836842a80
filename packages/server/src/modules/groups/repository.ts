import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { type PageWindow, pageById } from '../../pagination/page.ts';
import type { GroupWithCount } from './records.ts';

export type { GroupWithCount } from './records.ts';

/** Global (tenant-wide) groups, usable in access policies as `serviceCloud.groups`. */
export class GroupsRepository {
  constructor(private readonly db: Db) {}

  transaction<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  private withCount(db: Db = this.db) {
    return db
      .selectFrom('groups as g')
      .selectAll('g')
      .select(
        sql<number>`(select count(*)::int from group_members m where m.group_id = g.id)`.as('user_count'),
      );
  }

  list(tenantId: number, window: PageWindow): Promise<GroupWithCount[]> {
    const q = this.withCount().where('g.tenant_id', '=', tenantId).orderBy('g.id');
    return pageById(q, window, 'g.id').execute();
  }

  find(tenantId: number, id: number, db: Db = this.db): Promise<GroupWithCount | undefined> {
    return this.withCount(db).where('g.tenant_id', '=', tenantId).where('g.id', '=', id).executeTakeFirst();
  }

  async insert(
    tenantId: number,
    input: { name: string; description?: string | null; externalId?: string | null },
    db: Db = this.db,
  ) {
    const row = await db
      .insertInto('groups')
      .values({
        tenant_id: tenantId,
        name: input.name,
        description: input.description ?? null,
        external_id: input.externalId ?? null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { ...row, user_count: 0 };
  }

  update(
    tenantId: number,
    id: number,
    input: { name?: string; description?: string | null },
    db: Db = this.db,
  ) {
    return db
      .updateTable('groups')
      .set({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .returning('id')
      .executeTakeFirst();
  }

  async delete(tenantId: number, id: number, db: Db = this.db): Promise<boolean> {
    const r = await db
      .deleteFrom('groups')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }

  /** Idempotent: adding a member twice leaves one membership. */
  async addMember(groupId: number, userId: number, db: Db = this.db) {
    await db
      .insertInto('group_members')
      .values({ group_id: groupId, user_id: userId })
      .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
      .execute();
  }

  async removeMember(groupId: number, userId: number, db: Db = this.db): Promise<boolean> {
    const r = await db
      .deleteFrom('group_members')
      .where('group_id', '=', groupId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }

  memberIds(groupId: number): Promise<{ user_id: number }[]> {
    return this.db
      .selectFrom('group_members')
      .select('user_id')
      .where('group_id', '=', groupId)
      .orderBy('user_id')
      .execute();
  }

  /** Group names of a user: what goes into `serviceCloud.groups`. */
  async namesOfUser(userId: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('group_members as m')
      .innerJoin('groups as g', 'g.id', 'm.group_id')
      .select('g.name')
      .where('m.user_id', '=', userId)
      .orderBy('g.name')
      .execute();
    return rows.map((r) => r.name);
  }
}
