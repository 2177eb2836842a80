import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { EmbedUserRow } from '../../db/schema.ts';
import { type KeysetRow, pageByKeys } from '../../pagination/keyset.ts';
import type { PageWindow } from '../../pagination/page.ts';
import type { EmbedIdentity } from './records.ts';

export type { EmbedIdentity, Lifetime } from './records.ts';

/** End users of embedding, one per (account, embed tenant, external id); plain Kysely. */
export class EmbedUsersRepository {
  constructor(private readonly db: Db) {}

  /**
   * Creates or updates the user in one statement on the unique identity, so parallel sessions
   * for one new end user create one user (spec 4.3). The sweeper locks the rows it picks: a user
   * whose lifetime an upsert restarted first is no longer picked, and one the sweeper took first
   * is created anew by the upsert once the deletion commits.
   */
  upsert(identity: EmbedIdentity, db: Db = this.db): Promise<EmbedUserRow> {
    const lifetime = identity.lifetime;
    const expires =
      lifetime.kind === 'permanent'
        ? sql<Date | null>`null`
        : sql<Date>`now() + make_interval(secs => ${lifetime.ttlSeconds})`;
    const expiresOnUpdate =
      lifetime.kind === 'keep'
        ? sql<Date | null>`case when embed_users.expires_at is null then null else excluded.expires_at end`
        : sql<Date | null>`excluded.expires_at`;
    const keepOr = <T>(column: string) =>
      sql<T>`coalesce(excluded.${sql.ref(column)}, embed_users.${sql.ref(column)})`;
    return db
      .insertInto('embed_users')
      .values({
        tenant_id: identity.tenantId,
        embed_tenant_id: identity.embedTenantId,
        external_id: identity.externalId,
        email: identity.email ?? null,
        display_name: identity.displayName ?? null,
        picture: identity.picture ?? null,
        internal_id: identity.internalId ?? null,
        expires_at: expires,
        last_login: identity.signsIn ? sql<Date>`now()` : null,
      })
      .onConflict((oc) =>
        oc.expression(sql`tenant_id, coalesce(embed_tenant_id, 0), external_id`).doUpdateSet({
          email: keepOr<string | null>('email'),
          display_name: keepOr<string | null>('display_name'),
          picture: keepOr<string | null>('picture'),
          internal_id: keepOr<string | null>('internal_id'),
          last_login: keepOr<Date | null>('last_login'),
          expires_at: expiresOnUpdate,
          updated_at: sql`now()`,
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  inTenant(tenantId: number, embedTenantId: number, db: Db = this.db) {
    return db
      .selectFrom('embed_users as u')
      .selectAll('u')
      .where('u.tenant_id', '=', tenantId)
      .where('u.embed_tenant_id', '=', embedTenantId);
  }

  byIds(tenantId: number, embedTenantId: number, ids: number[]): Promise<EmbedUserRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.inTenant(tenantId, embedTenantId).where('u.id', 'in', ids).execute();
  }

  byExternalIds(
    tenantId: number,
    embedTenantId: number,
    externalIds: string[],
    db: Db = this.db,
  ): Promise<EmbedUserRow[]> {
    if (externalIds.length === 0) return Promise.resolve([]);
    return this.inTenant(tenantId, embedTenantId, db).where('u.external_id', 'in', externalIds).execute();
  }

  /** Ordered by email (the reference's order); `search` matches a substring of email or external id. */
  list(
    tenantId: number,
    embedTenantId: number,
    search: string | undefined,
    window: PageWindow,
  ): Promise<(EmbedUserRow & KeysetRow)[]> {
    let q = this.inTenant(tenantId, embedTenantId);
    if (search)
      q = q.where(
        sql<boolean>`(strpos(lower(coalesce(u.email, '')), lower(${search})) > 0 or strpos(u.external_id, lower(${search})) > 0)`,
      );
    return pageByKeys(
      q,
      window,
      [
        { expression: sql`coalesce(u.email, '')`, cast: 'text' },
        { expression: sql`u.id`, cast: 'integer' },
      ],
      'asc',
    ).execute();
  }

  /**
   * Removes up to `limit` ephemeral users whose lifetime has passed (spec 3), with their sessions
   * and memberships (ON DELETE CASCADE). Replicas run this together: SKIP LOCKED hands each row
   * to one of them, and a row deleted by another is not returned here, so each user is removed
   * and reported exactly once.
   */
  async deleteExpired(limit: number): Promise<number[]> {
    const rows = await this.db
      .deleteFrom('embed_users')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('embed_users')
          .select('id')
          .where('expires_at', '<', sql<Date>`now()`)
          .orderBy('id')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .returning('id')
      .execute();
    return rows.map((r) => r.id);
  }
}
