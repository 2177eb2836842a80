import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { EmbedGroupRow, EmbedUserRow } from '../../db/schema.ts';
import { type KeysetRow, pageByKeys } from '../../pagination/keyset.ts';
import type { PageWindow } from '../../pagination/page.ts';

export type EmbedGroupWithCount = EmbedGroupRow & { user_count: number };

/**
 * Groups an embed user can be in: the embed tenant's own groups (spec 4.3 rule 2) with their
 * members, and lookups of the account's global groups by name (rule 1); plain Kysely.
 */
export class EmbedGroupsRepository {
  constructor(private readonly db: Db) {}

  /** The global groups of the account with exactly these names (spec 4.3 rule 1: names are verbatim). */
  globalNamed(tenantId: number, names: string[], db: Db = this.db): Promise<{ id: number; name: string }[]> {
    if (names.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('groups')
      .select(['id', 'name'])
      .where('tenant_id', '=', tenantId)
      .where('name', 'in', names)
      .execute();
  }

  named(embedTenantId: number, names: string[], db: Db = this.db): Promise<EmbedGroupRow[]> {
    if (names.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('embed_groups')
      .selectAll()
      .where('embed_tenant_id', '=', embedTenantId)
      .where('name', 'in', names)
      .execute();
  }

  /**
   * Creates or updates groups by name (spec 4.3 `tenantGroupDefinitions`): one statement on the
   * unique (tenant, name), so identical parallel requests never duplicate a group. A description
   * given replaces the stored one; none keeps it.
   */
  async upsert(
    embedTenantId: number,
    groups: { name: string; description?: string | null }[],
    db: Db = this.db,
  ) {
    if (groups.length === 0) return;
    await db
      .insertInto('embed_groups')
      .values(
        groups.map((g) => ({
          embed_tenant_id: embedTenantId,
          name: g.name,
          description: g.description ?? null,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['embed_tenant_id', 'name']).doUpdateSet({
          description: sql`coalesce(excluded.description, embed_groups.description)`,
          updated_at: sql`now()`,
        }),
      )
      .execute();
  }

  private withCount() {
    return this.db
      .selectFrom('embed_groups as g')
      .selectAll('g')
      .select(
        sql<number>`(select count(*)::int from embed_group_members m where m.group_id = g.id)`.as(
          'user_count',
        ),
      );
  }

  find(embedTenantId: number, id: number): Promise<EmbedGroupWithCount | undefined> {
    return this.withCount()
      .where('g.embed_tenant_id', '=', embedTenantId)
      .where('g.id', '=', id)
      .executeTakeFirst();
  }

  /** Newest first (the reference's listing order). */
  list(embedTenantId: number, window: PageWindow): Promise<(EmbedGroupWithCount & KeysetRow)[]> {
    const q = this.withCount().where('g.embed_tenant_id', '=', embedTenantId);
    return pageByKeys(q, window, [{ expression: sql`g.id`, cast: 'integer' }], 'desc').execute();
  }

  /** Undefined when the name is taken in this tenant. */
  insert(
    embedTenantId: number,
    name: string,
    description: string | null,
    db: Db = this.db,
  ): Promise<EmbedGroupRow | undefined> {
    return db
      .insertInto('embed_groups')
      .values({ embed_tenant_id: embedTenantId, name, description })
      .onConflict((oc) => oc.columns(['embed_tenant_id', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
  }

  async updateDescription(id: number, description: string | null, db: Db = this.db): Promise<void> {
    await db
      .updateTable('embed_groups')
      .set({ description, updated_at: sql<Date>`now()` })
      .where('id', '=', id)
      .execute();
  }

  /** Deletes the group only while it has no members; false when it had some. */
  async deleteIfEmpty(id: number, db: Db = this.db): Promise<boolean> {
    const r = await db
      .deleteFrom('embed_groups')
      .where('id', '=', id)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('embed_group_members').select('group_id').where('group_id', '=', id))),
      )
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }

  /** Most recently added first (the reference's listing order). */
  members(groupId: number, window: PageWindow): Promise<(EmbedUserRow & KeysetRow)[]> {
    const q = this.db
      .selectFrom('embed_group_members as m')
      .innerJoin('embed_users as u', 'u.id', 'm.embed_user_id')
      .selectAll('u')
      .where('m.group_id', '=', groupId);
    return pageByKeys(
      q,
      window,
      [
        { expression: sql`m.created_at`, cast: 'timestamptz' },
        { expression: sql`u.id`, cast: 'integer' },
      ],
      'desc',
    ).execute();
  }

  /** Adds memberships, never replaces them; answers the ids that were not members before. */
  async addMembers(groupId: number, userIds: number[], db: Db = this.db): Promise<number[]> {
    if (userIds.length === 0) return [];
    const rows = await db
      .insertInto('embed_group_members')
      .values(userIds.map((id) => ({ group_id: groupId, embed_user_id: id })))
      .onConflict((oc) => oc.columns(['group_id', 'embed_user_id']).doNothing())
      .returning('embed_user_id')
      .execute();
    return rows.map((r) => r.embed_user_id);
  }

  async removeMembers(groupId: number, userIds: number[], db: Db = this.db): Promise<void> {
    if (userIds.length === 0) return;
    await db
      .deleteFrom('embed_group_members')
      .where('group_id', '=', groupId)
      .where('embed_user_id', 'in', userIds)
      .execute();
  }

  /** Replaces the user's tenant-group memberships with exactly these groups. */
  async setTenantGroups(userId: number, groupIds: number[], db: Db = this.db): Promise<void> {
    let gone = db.deleteFrom('embed_group_members').where('embed_user_id', '=', userId);
    if (groupIds.length > 0) gone = gone.where('group_id', 'not in', groupIds);
    await gone.execute();
    if (groupIds.length > 0)
      await db
        .insertInto('embed_group_members')
        .values(groupIds.map((id) => ({ group_id: id, embed_user_id: userId })))
        .onConflict((oc) => oc.columns(['group_id', 'embed_user_id']).doNothing())
        .execute();
  }

  /** Replaces the user's global-group lane with exactly these groups. */
  async setGlobalGroups(userId: number, groupIds: number[], db: Db = this.db): Promise<void> {
    let gone = db.deleteFrom('embed_user_groups').where('embed_user_id', '=', userId);
    if (groupIds.length > 0) gone = gone.where('group_id', 'not in', groupIds);
    await gone.execute();
    if (groupIds.length > 0)
      await db
        .insertInto('embed_user_groups')
        .values(groupIds.map((id) => ({ group_id: id, embed_user_id: userId })))
        .onConflict((oc) => oc.columns(['embed_user_id', 'group_id']).doNothing())
        .execute();
  }
}
