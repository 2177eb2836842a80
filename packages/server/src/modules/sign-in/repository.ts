import { sql } from 'kysely';
import type { HeldRole } from '../../auth/roles.ts';
import type { Db } from '../../db/database.ts';
import type { AccountRole, BrowserSessionRow } from '../../db/schema.ts';
import { heldRolesOf } from '../roles/held-roles.ts';
import type { NewSession } from './records.ts';

export type { NewSession } from './records.ts';

/** A session with what authentication needs of its user, in one round trip. */
export interface SessionLookup {
  id: number;
  tenant_id: number;
  user_id: number;
  last_seen_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  role: AccountRole;
  is_deactivated: boolean;
  held_roles: HeldRole[];
}

/** Browser sessions (migration 0010-sign-in) and users' password hashes. */
export class SignInRepository {
  constructor(private readonly db: Db) {}

  findSession(hash: string): Promise<SessionLookup | undefined> {
    return this.db
      .selectFrom('browser_sessions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .select([
        's.id',
        's.tenant_id',
        's.user_id',
        's.last_seen_at',
        's.expires_at',
        's.revoked_at',
        'u.role',
        'u.is_deactivated',
        heldRolesOf('u.id').as('held_roles'),
      ])
      .where('s.session_hash', '=', hash)
      .executeTakeFirst();
  }

  insertSession(input: NewSession, db: Db = this.db): Promise<BrowserSessionRow> {
    return db
      .insertInto('browser_sessions')
      .values({
        tenant_id: input.tenantId,
        user_id: input.userId,
        session_hash: input.hash,
        expires_at: input.expiresAt,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Removes a user's sessions that can no longer be used: revoked, past their limit, or idle since `idleCutoff`. */
  pruneDeadSessions(userId: number, idleCutoff: Date, db: Db = this.db) {
    return db
      .deleteFrom('browser_sessions')
      .where('user_id', '=', userId)
      .where((eb) =>
        eb.or([
          eb('revoked_at', 'is not', null),
          eb('expires_at', '<=', sql<Date>`now()`),
          eb('last_seen_at', '<', idleCutoff),
        ]),
      )
      .execute();
  }

  touchSession(id: number) {
    return this.db
      .updateTable('browser_sessions')
      .set({ last_seen_at: sql<Date>`now()` })
      .where('id', '=', id)
      .execute();
  }

  /** Sets revoked_at once; a second revocation keeps the first time. */
  revokeSession(id: number, db: Db = this.db) {
    return db
      .updateTable('browser_sessions')
      .set({ revoked_at: sql<Date>`coalesce(revoked_at, now())` })
      .where('id', '=', id)
      .execute();
  }

  /** Ends every open session of a user, but `keepId` (the session that changed the password). */
  revokeAllOfUser(userId: number, db: Db = this.db, keepId?: number) {
    let q = db
      .updateTable('browser_sessions')
      .set({ revoked_at: sql<Date>`now()` })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null);
    if (keepId !== undefined) q = q.where('id', '<>', keepId);
    return q.execute();
  }

  async passwordHash(tenantId: number, userId: number): Promise<string | null> {
    const row = await this.db
      .selectFrom('users')
      .select('password_hash')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', userId)
      .executeTakeFirst();
    return row?.password_hash ?? null;
  }

  /** False when the tenant has no such user. `updated_at` stays: the password is no attribute the API shows. */
  async setPasswordHash(tenantId: number, userId: number, hash: string, db: Db = this.db): Promise<boolean> {
    const result = await db
      .updateTable('users')
      .set({ password_hash: hash })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', userId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
