import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { EmbedTenantRow } from '../../db/schema.ts';
import { type PageWindow, pageById } from '../../pagination/page.ts';
import type { EmbedTenantWithCount } from './records.ts';

export type { EmbedTenantWithCount } from './records.ts';

/** Embed tenants of an account (the `embedTenantName` of spec 4.3); plain Kysely. */
export class EmbedTenantsRepository {
  constructor(private readonly db: Db) {}

  private withCount(db: Db = this.db) {
    return db
      .selectFrom('embed_tenants as t')
      .selectAll('t')
      .select(
        sql<number>`(select count(*)::int from embed_users u where u.embed_tenant_id = t.id)`.as(
          'user_count',
        ),
      );
  }

  find(tenantId: number, name: string, db: Db = this.db): Promise<EmbedTenantWithCount | undefined> {
    return this.withCount(db)
      .where('t.tenant_id', '=', tenantId)
      .where('t.name', '=', name)
      .executeTakeFirst();
  }

  list(tenantId: number, search: string | undefined, window: PageWindow): Promise<EmbedTenantWithCount[]> {
    let q = this.withCount().where('t.tenant_id', '=', tenantId);
    if (search) q = q.where(sql<boolean>`strpos(lower(t.name), lower(${search})) > 0`);
    return pageById(q.orderBy('t.id'), window, 't.id').execute();
  }

  /**
   * Creates the embed tenant or returns it; a display name given replaces the stored one. One
   * statement on the unique (tenant, name): parallel sessions for a new tenant create it once.
   */
  upsert(
    tenantId: number,
    name: string,
    displayName: string | null,
    db: Db = this.db,
  ): Promise<EmbedTenantRow> {
    return db
      .insertInto('embed_tenants')
      .values({ tenant_id: tenantId, name, display_name: displayName })
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'name']).doUpdateSet({
          display_name: sql`coalesce(excluded.display_name, embed_tenants.display_name)`,
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Users, groups, memberships, sessions and shares go with it (ON DELETE CASCADE). */
  async delete(tenantId: number, name: string, db: Db = this.db): Promise<void> {
    await db.deleteFrom('embed_tenants').where('tenant_id', '=', tenantId).where('name', '=', name).execute();
  }
}
