import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { AccountRole, UserRow } from '../../db/schema.ts';
import { type PageWindow, pageById } from '../../pagination/page.ts';
import type { UserInput } from './records.ts';

export type { UserInput } from './records.ts';

export interface UserChanges {
  email?: string;
  passwordHash?: string;
  settings?: Record<string, unknown>;
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
        password_hash: input.passwordHash ?? null,
        settings: JSON.stringify(input.settings ?? {}),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  update(tenantId: number, id: number, changes: UserChanges, db: Db = this.db): Promise<UserRow | undefined> {
    return db
      .updateTable('users')
      .set({
        ...(changes.email !== undefined ? { email: changes.email } : {}),
        ...(changes.passwordHash !== undefined ? { password_hash: changes.passwordHash } : {}),
        ...(changes.settings !== undefined ? { settings: JSON.stringify(changes.settings) } : {}),
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

  /** The longest-standing active admin of the tenant other than `exceptId`: who inherits content. */
  async firstActiveAdmin(tenantId: number, exceptId: number, db: Db = this.db): Promise<number | undefined> {
    const row = await db
      .selectFrom('users')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('role', '=', 'admin')
      .where('is_deactivated', '=', false)
      .where('id', '<>', exceptId)
      .orderBy('id')
      .executeTakeFirst();
    return row?.id;
  }

  /**
   * Hands everything a user made or owns to another user before the user is deleted, so that
   * none of it is lost: every column that refers to users and would be set null on deletion
   * (found in the catalog, so content added by later migrations is covered too), and the user's
   * chat threads, which would be deleted with them.
   */
  async transferContent(fromUserId: number, toUserId: number, db: Db = this.db): Promise<void> {
    const { rows } = await sql<{ table: string; column: string }>`
      SELECT cl.relname AS table, a.attname AS column
      FROM pg_constraint c
      JOIN pg_class cl ON cl.oid = c.conrelid
      JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
      WHERE c.contype = 'f' AND c.confrelid = 'users'::regclass AND c.confdeltype = 'n'
      ORDER BY 1, 2`.execute(db);
    for (const { table, column } of [...rows, { table: 'chat_threads', column: 'user_id' }]) {
      await sql`UPDATE ${sql.table(table)} SET ${sql.ref(column)} = ${toUserId} WHERE ${sql.ref(column)} = ${fromUserId}`.execute(
        db,
      );
    }
  }
}
