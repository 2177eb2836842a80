import { type CompiledQuery, sql } from 'kysely';
import type { Db } from '../../db/database.ts';

export interface DashboardView {
  tenantId: number;
  dashboardId: number;
  userId: number | null;
  embedUserId: number | null;
}

/**
 * The tables of Usage Analytics (migration 0035): the dashboard view log and each tenant's usage
 * secret; and the one read-only path into the `usage_analytics` views. Plain Kysely, no rules.
 */
export class UsageAnalyticsRepository {
  constructor(private readonly db: Db) {}

  /** The tenant's sealed usage secret; `sealed` is stored first if there is none (concurrent callers agree). */
  async secret(tenantId: number, sealed?: string): Promise<string | undefined> {
    if (sealed !== undefined)
      await this.db
        .insertInto('usage_analytics_secrets')
        .values({ tenant_id: tenantId, api_secret_enc: sealed })
        .onConflict((oc) => oc.column('tenant_id').doNothing())
        .execute();
    const row = await this.db
      .selectFrom('usage_analytics_secrets')
      .select('api_secret_enc')
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return row?.api_secret_enc;
  }

  async recordView(view: DashboardView): Promise<void> {
    await this.db
      .insertInto('dashboard_views')
      .values({
        tenant_id: view.tenantId,
        dashboard_id: view.dashboardId,
        user_id: view.userId,
        embed_user_id: view.embedUserId,
      })
      .execute();
  }

  /** Deletes the tenant's views older than `days`, then all but its newest `keep`. */
  async pruneViews(tenantId: number, days: number, keep: number): Promise<void> {
    await this.db
      .deleteFrom('dashboard_views')
      .where('tenant_id', '=', tenantId)
      .where('viewed_at', '<', sql<Date>`now() - make_interval(days => ${days})`)
      .execute();
    await this.db
      .deleteFrom('dashboard_views')
      .where('tenant_id', '=', tenantId)
      .where('id', '<', (eb) =>
        eb
          .selectFrom('dashboard_views')
          .select('id')
          .where('tenant_id', '=', tenantId)
          .orderBy('id', 'desc')
          .offset(keep - 1)
          .limit(1),
      )
      .execute();
  }

  /**
   * Runs a statement the usage model compiled, as one tenant: in a READ ONLY transaction whose
   * `tessera.usage_tenant` (SET LOCAL: gone at commit, never seen by another transaction on the
   * pooled connection) makes the `usage_analytics` views show that tenant's rows only.
   */
  readAsTenant(tenantId: number, statement: CompiledQuery, timeoutMs: number) {
    return this.db.transaction().execute(async (trx) => {
      await sql`SET TRANSACTION READ ONLY`.execute(trx);
      await sql`SELECT set_config('tessera.usage_tenant', ${String(tenantId)}, true), set_config('statement_timeout', ${String(timeoutMs)}, true)`.execute(
        trx,
      );
      const { rows } = await trx.executeQuery<Record<string, unknown>>(statement);
      return rows;
    });
  }
}
