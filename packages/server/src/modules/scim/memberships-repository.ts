import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { MemberRow } from './group-mapping.ts';
import type { UserGroupRef } from './user-mapping.ts';

/** Group memberships as SCIM shows them: a user's `groups`, a group's `members`. Plain Kysely. */
export class ScimMembershipsRepository {
  constructor(private readonly db: Db) {}

  /** The groups of each user, by name. */
  async groupsOf(userIds: number[], db: Db = this.db): Promise<Map<number, UserGroupRef[]>> {
    const byUser = new Map<number, UserGroupRef[]>(userIds.map((id) => [id, []]));
    if (userIds.length === 0) return byUser;
    const rows = await db
      .selectFrom('group_members as m')
      .innerJoin('groups as g', 'g.id', 'm.group_id')
      .select(['m.user_id', 'm.group_id', 'g.name'])
      .where('m.user_id', 'in', userIds)
      .orderBy('g.name')
      .execute();
    for (const r of rows) byUser.get(r.user_id)?.push({ group_id: r.group_id, name: r.name });
    return byUser;
  }

  /** The members of each group, with what their display falls back to. */
  async membersOf(groupIds: number[], db: Db = this.db): Promise<Map<number, MemberRow[]>> {
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
  async existingUserIds(tenantId: number, ids: number[], db: Db): Promise<number[]> {
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
  async setMembers(groupId: number, userIds: number[], db: Db): Promise<void> {
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
