import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ScimDatabase } from '../../db/schema.ts';
import type { Sort, Window } from './list.ts';
import type { ScimUserRow, UserGroupRef } from './user-mapping.ts';

export type ScimDb = Kysely<ScimDatabase>;

/** Microsecond `updated_at`: the weak ETag of a resource (RFC 7644 section 3.14). */
export const versionOf = (alias: 'u' | 'g') =>
  sql<string>`(extract(epoch from ${sql.ref(`${alias}.updated_at`)}) * 1000000)::bigint::text`;

export interface UserColumns {
  username: string;
  email: string;
  externalId: string | null;
  firstName: string | null;
  lastName: string | null;
  isDeactivated: boolean;
  document: unknown;
}

/** Users as SCIM sees them: plain Kysely on `users as u`, with the `scim` document. */
export class ScimUsersRepository {
  readonly db: ScimDb;
  constructor(db: Db) {
    this.db = db as unknown as ScimDb;
  }

  private select(db: ScimDb) {
    return db.selectFrom('users as u').selectAll('u').select(versionOf('u').as('version'));
  }

  find(tenantId: number, id: number, db: ScimDb = this.db, lock = false): Promise<ScimUserRow | undefined> {
    let q = this.select(db).where('u.tenant_id', '=', tenantId).where('u.id', '=', id);
    if (lock) q = q.forUpdate();
    return q.executeTakeFirst();
  }

  async count(tenantId: number, where: RawBuilder<boolean> | undefined): Promise<number> {
    let q = this.db
      .selectFrom('users as u')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('u.tenant_id', '=', tenantId);
    if (where) q = q.where(where);
    return (await q.executeTakeFirstOrThrow()).n;
  }

  list(
    tenantId: number,
    where: RawBuilder<boolean> | undefined,
    sort: Sort | undefined,
    window: Window,
  ): Promise<ScimUserRow[]> {
    let q = this.select(this.db).where('u.tenant_id', '=', tenantId);
    if (where) q = q.where(where);
    if (sort) q = q.orderBy(sql`${sort.expr} ${sql.raw(sort.descending ? 'desc' : 'asc')} nulls last`);
    return q.orderBy('u.id').offset(window.offset).limit(window.limit).execute();
  }

  async insert(tenantId: number, c: UserColumns): Promise<number> {
    const row = await this.db
      .insertInto('users')
      .values({
        tenant_id: tenantId,
        username: c.username,
        email: c.email,
        external_id: c.externalId,
        first_name: c.firstName,
        last_name: c.lastName,
        is_deactivated: c.isDeactivated,
        role: 'viewer',
        scim: JSON.stringify(c.document),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async update(tenantId: number, id: number, c: UserColumns, db: ScimDb): Promise<void> {
    await db
      .updateTable('users')
      .set({
        username: c.username,
        email: c.email,
        external_id: c.externalId,
        first_name: c.firstName,
        last_name: c.lastName,
        is_deactivated: c.isDeactivated,
        scim: JSON.stringify(c.document),
        updated_at: sql<Date>`now()`,
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  async delete(tenantId: number, id: number, db: ScimDb = this.db): Promise<boolean> {
    const r = await db
      .deleteFrom('users')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }

  /** Whether another user of the tenant holds this value, compared as the unique indexes do. */
  async taken(
    tenantId: number,
    column: 'username' | 'email',
    value: string,
    exceptId?: number,
    db: ScimDb = this.db,
  ): Promise<boolean> {
    let q = db
      .selectFrom('users')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where(sql`lower(${sql.ref(column)})`, '=', value.toLowerCase());
    if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
    return (await q.executeTakeFirst()) !== undefined;
  }

  async countOtherActiveAdmins(tenantId: number, exceptId: number, db: ScimDb): Promise<number> {
    const row = await db
      .selectFrom('users')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('tenant_id', '=', tenantId)
      .where('role', '=', 'admin')
      .where('is_deactivated', '=', false)
      .where('id', '<>', exceptId)
      .executeTakeFirstOrThrow();
    return row.n;
  }

  /** The groups of each user, for the read-only `groups` attribute (RFC 7643 section 4.1.2). */
  async groupsOf(userIds: number[]): Promise<Map<number, UserGroupRef[]>> {
    const byUser = new Map<number, UserGroupRef[]>(userIds.map((id) => [id, []]));
    if (userIds.length === 0) return byUser;
    const rows = await this.db
      .selectFrom('group_members as m')
      .innerJoin('groups as g', 'g.id', 'm.group_id')
      .select(['m.user_id', 'm.group_id', 'g.name'])
      .where('m.user_id', 'in', userIds)
      .orderBy('g.name')
      .execute();
    for (const r of rows) byUser.get(r.user_id)?.push({ group_id: r.group_id, name: r.name });
    return byUser;
  }
}
