import { sql } from 'kysely';
import type { Policy } from '../../auth/roles.ts';
import type { Db } from '../../db/database.ts';
import type { RoleRow } from '../../db/schema.ts';
import type { PageWindow } from '../../pagination/page.ts';

export { heldRolesOf } from './held-roles.ts';

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

  /** Whether `groupId` is a global group of the tenant (roles are assigned to those only). */
  async groupExists(tenantId: number, groupId: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('groups')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', groupId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Whether the group did not hold the role before (an idempotent repeat changes nothing). */
  async assignToGroup(groupId: number, roleId: number): Promise<boolean> {
    const added = await this.db
      .insertInto('group_roles')
      .values({ group_id: groupId, role_id: roleId })
      .onConflict((oc) => oc.columns(['group_id', 'role_id']).doNothing())
      .returning('role_id')
      .executeTakeFirst();
    return added !== undefined;
  }

  /** Whether the group held the role. */
  async unassignFromGroup(groupId: number, roleId: number): Promise<boolean> {
    const removed = await this.db
      .deleteFrom('group_roles')
      .where('group_id', '=', groupId)
      .where('role_id', '=', roleId)
      .returning('role_id')
      .executeTakeFirst();
    return removed !== undefined;
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
