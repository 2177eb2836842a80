import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { MemberRow, ScimGroupRow } from './group-mapping.ts';
import type { Sort, Window } from './list.ts';
import { type ScimDb, versionOf } from './users-repository.ts';

export interface GroupColumns {
  name: string;
  externalId: string | null;
  document: unknown;
}

/** Global groups as SCIM sees them: plain Kysely on `groups as g` and `group_members`. */
export class ScimGroupsRepository {
  readonly db: ScimDb;
  constructor(db: Db) {
    this.db = db as unknown as ScimDb;
  }

  private select(db: ScimDb) {
    return db.selectFrom('groups as g').selectAll('g').select(versionOf('g').as('version'));
  }

  find(tenantId: number, id: number, db: ScimDb = this.db, lock = false): Promise<ScimGroupRow | undefined> {
    let q = this.select(db).where('g.tenant_id', '=', tenantId).where('g.id', '=', id);
    if (lock) q = q.forUpdate();
    return q.executeTakeFirst();
  }

  async count(tenantId: number, where: RawBuilder<boolean> | undefined): Promise<number> {
    let q = this.db
      .selectFrom('groups as g')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('g.tenant_id', '=', tenantId);
    if (where) q = q.where(where);
    return (await q.executeTakeFirstOrThrow()).n;
  }

  list(
    tenantId: number,
    where: RawBuilder<boolean> | undefined,
    sort: Sort | undefined,
    window: Window,
  ): Promise<ScimGroupRow[]> {
    let q = this.select(this.db).where('g.tenant_id', '=', tenantId);
    if (where) q = q.where(where);
    if (sort) q = q.orderBy(sql`${sort.expr} ${sql.raw(sort.descending ? 'desc' : 'asc')} nulls last`);
    return q.orderBy('g.id').offset(window.offset).limit(window.limit).execute();
  }

  async insert(tenantId: number, c: GroupColumns, db: ScimDb): Promise<number> {
    const row = await db
      .insertInto('groups')
      .values({
        tenant_id: tenantId,
        name: c.name,
        external_id: c.externalId,
        scim: JSON.stringify(c.document),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async update(tenantId: number, id: number, c: GroupColumns, db: ScimDb): Promise<void> {
    await db
      .updateTable('groups')
      .set({
        name: c.name,
        external_id: c.externalId,
        scim: JSON.stringify(c.document),
        updated_at: sql<Date>`now()`,
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  async delete(tenantId: number, id: number, db: ScimDb = this.db): Promise<boolean> {
    const r = await db
      .deleteFrom('groups')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }

  /** Members of each group, with what their display falls back to. */
  async membersOf(groupIds: number[], db: ScimDb = this.db): Promise<Map<number, MemberRow[]>> {
    const byGroup = new Map<number, MemberRow[]>(groupIds.map((id) => [id, []]));
    if (groupIds.length === 0) return byGroup;
    const rows = await db
      .selectFrom('group_members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select([
        'm.group_id',
        'm.user_id',
        'u.username',
        sql<string | null>`u.scim->>'displayName'`.as('display_name'),
      ])
      .where('m.group_id', 'in', groupIds)
      .orderBy('m.user_id')
      .execute();
    for (const r of rows) byGroup.get(r.group_id)?.push(r);
    return byGroup;
  }

  /** The subset of ids that are users of the tenant. */
  async existingUserIds(tenantId: number, ids: number[], db: ScimDb): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('users')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', ids)
      .execute();
    return rows.map((r) => r.id);
  }

  /** Makes the membership exactly `userIds` (RFC 7644 section 3.5.1: PUT replaces members). */
  async setMembers(groupId: number, userIds: number[], db: ScimDb): Promise<void> {
    let del = db.deleteFrom('group_members').where('group_id', '=', groupId);
    if (userIds.length > 0) del = del.where('user_id', 'not in', userIds);
    await del.execute();
    if (userIds.length === 0) return;
    await db
      .insertInto('group_members')
      .values(userIds.map((user_id) => ({ group_id: groupId, user_id })))
      .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
      .execute();
  }
}
