import { type RawBuilder, sql } from 'kysely';
import type { HeldRole, Policy } from '../../auth/roles.ts';
import type { Db } from '../../db/database.ts';
import type { RoleRow } from '../../db/schema.ts';
import type { PageWindow } from '../../pagination/page.ts';

/**
 * The roles a user holds through assignments, as one JSON array for the credential lookups
 * (modules/api-keys, modules/sign-in): `[{builtIn, policies}]`. One round trip stays one.
 */
export function heldRolesOf(userIdColumn: string): RawBuilder<HeldRole[]> {
  return sql<
    HeldRole[]
  >`(select coalesce(json_agg(json_build_object('builtIn', r.built_in, 'policies', r.policies)), '[]'::json)
    from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = ${sql.ref(userIdColumn)})`;
}

export interface RoleInput {
  name: string;
  description?: string | null;
  policies: Policy[];
}

/** Custom roles of a tenant and the built-in ones (migration 0020), and who holds them. */
export class RolesRepository {
  constructor(private readonly db: Db) {}

  /** Runs `fn` in one transaction with a repository bound to it: a change and its audit entry commit together. */
  transaction<T>(fn: (roles: RolesRepository, trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => fn(new RolesRepository(trx), trx));
  }

  /** A tenant's custom roles, newest first. */
  list(tenantId: number, window: PageWindow): Promise<RoleRow[]> {
    let q = this.db
      .selectFrom('roles')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('id', 'desc')
      .limit(window.size + 1);
    if (window.mode === 'offset') q = q.offset(window.offset);
    else if (window.after) q = q.where('id', '<', Number(window.after[0]));
    return q.execute();
  }

  /** A custom role of the tenant, or a built-in role. */
  find(tenantId: number, id: number, db: Db = this.db): Promise<RoleRow | undefined> {
    return db
      .selectFrom('roles')
      .selectAll()
      .where('id', '=', id)
      .where((eb) => eb.or([eb('tenant_id', '=', tenantId), eb('tenant_id', 'is', null)]))
      .executeTakeFirst();
  }

  builtIn(): Promise<RoleRow[]> {
    return this.db.selectFrom('roles').selectAll().where('tenant_id', 'is', null).orderBy('id').execute();
  }

  insert(tenantId: number, input: RoleInput): Promise<RoleRow> {
    return this.db
      .insertInto('roles')
      .values({
        tenant_id: tenantId,
        name: input.name,
        description: input.description ?? null,
        policies: JSON.stringify(input.policies),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  update(tenantId: number, id: number, input: Partial<RoleInput>): Promise<RoleRow | undefined> {
    return this.db
      .updateTable('roles')
      .set({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.policies !== undefined ? { policies: JSON.stringify(input.policies) } : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async delete(tenantId: number, id: number): Promise<boolean> {
    const r = await this.db
      .deleteFrom('roles')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }

  /** False when the user held the role already. */
  async assign(userId: number, roleId: number): Promise<boolean> {
    const rows = await this.db
      .insertInto('user_roles')
      .values({ user_id: userId, role_id: roleId })
      .onConflict((oc) => oc.columns(['user_id', 'role_id']).doNothing())
      .returning('user_id')
      .execute();
    return rows.length > 0;
  }

  /** False when the user did not hold the role. */
  async unassign(userId: number, roleId: number): Promise<boolean> {
    const r = await this.db
      .deleteFrom('user_roles')
      .where('user_id', '=', userId)
      .where('role_id', '=', roleId)
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }

  /** The roles assigned to each of `userIds`, by user id. */
  async ofUsers(userIds: number[]): Promise<Map<number, { id: number; name: string }[]>> {
    const byUser = new Map<number, { id: number; name: string }[]>();
    if (userIds.length === 0) return byUser;
    const rows = await this.db
      .selectFrom('user_roles as ur')
      .innerJoin('roles as r', 'r.id', 'ur.role_id')
      .select(['ur.user_id', 'r.id', 'r.name'])
      .where('ur.user_id', 'in', userIds)
      .orderBy('r.id')
      .execute();
    for (const row of rows) {
      const list = byUser.get(row.user_id) ?? [];
      list.push({ id: row.id, name: row.name });
      byUser.set(row.user_id, list);
    }
    return byUser;
  }
}
