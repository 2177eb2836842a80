import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { AccountRole, UserRow } from '../../db/schema.ts';
import { type PageWindow, pageById } from '../../pagination/page.ts';

export interface UserInput {
  email: string;
  username: string;
  firstName?: string | null;
  lastName?: string | null;
  picture?: string | null;
  role: AccountRole;
  externalId?: string | null;
}

export interface UserChanges {
  firstName?: string | null;
  lastName?: string | null;
  picture?: string | null;
  role?: AccountRole;
  isDeactivated?: boolean;
}

export class UsersRepository {
  constructor(private readonly db: Db) {}

  find(tenantId: number, id: number, db: Db = this.db): Promise<UserRow | undefined> {
    return db
      .selectFrom('users')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  findByEmail(tenantId: number, email: string): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where(sql`lower(email)`, '=', email.toLowerCase())
      .executeTakeFirst();
  }

  list(tenantId: number, window: PageWindow): Promise<UserRow[]> {
    const q = this.db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId).orderBy('id');
    return pageById(q, window, 'id').execute();
  }

  insert(tenantId: number, input: UserInput, db: Db = this.db): Promise<UserRow> {
    return db
      .insertInto('users')
      .values({
        tenant_id: tenantId,
        email: input.email,
        username: input.username,
        first_name: input.firstName ?? null,
        last_name: input.lastName ?? null,
        picture: input.picture ?? null,
        role: input.role,
        external_id: input.externalId ?? null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  update(tenantId: number, id: number, changes: UserChanges, db: Db = this.db): Promise<UserRow | undefined> {
    return db
      .updateTable('users')
      .set({
        ...(changes.firstName !== undefined ? { first_name: changes.firstName } : {}),
        ...(changes.lastName !== undefined ? { last_name: changes.lastName } : {}),
        ...(changes.picture !== undefined ? { picture: changes.picture } : {}),
        ...(changes.role !== undefined ? { role: changes.role } : {}),
        ...(changes.isDeactivated !== undefined ? { is_deactivated: changes.isDeactivated } : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async delete(tenantId: number, id: number, db: Db = this.db): Promise<boolean> {
    const r = await db
      .deleteFrom('users')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }

  async countActiveAdmins(tenantId: number, db: Db = this.db): Promise<number> {
    const row = await db
      .selectFrom('users')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('tenant_id', '=', tenantId)
      .where('role', '=', 'admin')
      .where('is_deactivated', '=', false)
      .executeTakeFirstOrThrow();
    return row.n;
  }
}
