import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { EmbedSessionRow } from '../../db/schema.ts';

export interface NewEmbedSession {
  tenantId: number;
  deploymentId: number;
  embedUserId: number;
  sessionHash: string;
  context: Record<string, unknown>;
  createdBy: number;
  lifetimeSeconds: number;
}

/** Embed sessions, stored by the SHA-256 of their id (DESIGN.md "Persistence"); plain Kysely. */
export class EmbedSessionsRepository {
  constructor(private readonly db: Db) {}

  async insert(session: NewEmbedSession, db: Db = this.db): Promise<void> {
    await db
      .insertInto('embed_sessions')
      .values({
        tenant_id: session.tenantId,
        deployment_id: session.deploymentId,
        embed_user_id: session.embedUserId,
        session_hash: session.sessionHash,
        context: JSON.stringify(session.context),
        created_by: session.createdBy,
        expires_at: sql<Date>`now() + make_interval(secs => ${session.lifetimeSeconds})`,
      })
      .execute();
  }

  /**
   * Redeems the session if it is still redeemable, in one statement (spec 4.3 rule 3: once): of
   * parallel redemptions, the row lock lets one set `redeemed_at` and the others find it set.
   * Only a session of `tenantId` (the account of the host it is redeemed on).
   */
  redeem(
    tenantId: number,
    sessionHash: string,
    tokenLifetimeSeconds: number,
  ): Promise<EmbedSessionRow | undefined> {
    return this.db
      .updateTable('embed_sessions')
      .set({
        redeemed_at: sql<Date>`now()`,
        token_expires_at: sql<Date>`now() + make_interval(secs => ${tokenLifetimeSeconds})`,
      })
      .where('session_hash', '=', sessionHash)
      .where('tenant_id', '=', tenantId)
      .where('redeemed_at', 'is', null)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', sql<Date>`now()`)
      .returningAll()
      .executeTakeFirst();
  }

  /** The session as it is now, with whether it has passed its lifetime by the store's clock. */
  find(sessionHash: string): Promise<(EmbedSessionRow & { expired: boolean }) | undefined> {
    return this.db
      .selectFrom('embed_sessions')
      .selectAll()
      .select(sql<boolean>`expires_at <= now()`.as('expired'))
      .where('session_hash', '=', sessionHash)
      .executeTakeFirst();
  }

  /** Revokes the session and so the token minted from it; the first revocation's time stays. */
  async revoke(id: number): Promise<void> {
    await this.db
      .updateTable('embed_sessions')
      .set({ revoked_at: sql<Date>`coalesce(revoked_at, now())` })
      .where('id', '=', id)
      .execute();
  }

  /**
   * What a token's every use checks (spec: revoking a session revokes its tokens): the session
   * row by primary key, and whether the tenant still embeds. Undefined once the row is gone.
   */
  tokenState(sessionId: number): Promise<{ revoked: boolean; embed_enabled: boolean } | undefined> {
    return this.db
      .selectFrom('embed_sessions as s')
      .innerJoin('tenants as t', 't.id', 's.tenant_id')
      .select([sql<boolean>`s.revoked_at is not null`.as('revoked'), 't.embed_enabled'])
      .where('s.id', '=', sessionId)
      .executeTakeFirst();
  }

  /**
   * Removes up to `limit` sessions that can serve no one any more: past their own lifetime and
   * past their token's. SKIP LOCKED: replicas sweeping together take different rows.
   */
  async deleteFinished(limit: number): Promise<number> {
    const rows = await this.db
      .deleteFrom('embed_sessions')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('embed_sessions')
          .select('id')
          .where(sql<boolean>`coalesce(token_expires_at, expires_at) < now()`)
          .orderBy('id')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .returning('id')
      .execute();
    return rows.length;
  }
}
