import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';

/** `oidc_identities` and `oidc_logins` (migration 0025), and the group lookups sign-in needs; no rules. */
export class OidcIdentitiesRepository {
  constructor(private readonly db: Db) {}

  async userOf(tenantId: number, issuer: string, subject: string): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('oidc_identities')
      .select('user_id')
      .where('tenant_id', '=', tenantId)
      .where('issuer', '=', issuer)
      .where('subject', '=', subject)
      .executeTakeFirst();
    return row?.user_id;
  }

  /** Links once: a concurrent first sign-in that linked first wins. */
  async link(tenantId: number, issuer: string, subject: string, userId: number): Promise<void> {
    await this.db
      .insertInto('oidc_identities')
      .values({ tenant_id: tenantId, issuer, subject, user_id: userId })
      .onConflict((oc) => oc.columns(['tenant_id', 'issuer', 'subject']).doNothing())
      .execute();
  }

  /** Group ids by name (case-insensitive, as groups are unique), creating the missing ones. */
  async ensureGroups(tenantId: number, names: string[]): Promise<number[]> {
    if (names.length === 0) return [];
    for (const name of names)
      await this.db
        .insertInto('groups')
        .values({ tenant_id: tenantId, name, description: null, external_id: null })
        .onConflict((oc) => oc.expression(sql`tenant_id, lower(name)`).doNothing())
        .execute();
    const rows = await this.db
      .selectFrom('groups')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where(
        sql`lower(name)`,
        'in',
        names.map((n) => n.toLowerCase()),
      )
      .execute();
    return rows.map((r) => r.id);
  }

  async insertLogin(login: {
    stateHash: string;
    tenantId: number;
    verifierEnc: string;
    nonce: string;
    expiresAt: Date;
  }) {
    await this.db.deleteFrom('oidc_logins').where('expires_at', '<', sql<Date>`now()`).execute();
    await this.db
      .insertInto('oidc_logins')
      .values({
        state_hash: login.stateHash,
        tenant_id: login.tenantId,
        verifier_enc: login.verifierEnc,
        nonce: login.nonce,
        expires_at: login.expiresAt,
      })
      .execute();
  }

  /** Removes and answers the sign-in in progress: a state is good once. */
  takeLogin(stateHash: string) {
    return this.db
      .deleteFrom('oidc_logins')
      .where('state_hash', '=', stateHash)
      .returningAll()
      .executeTakeFirst();
  }
}
