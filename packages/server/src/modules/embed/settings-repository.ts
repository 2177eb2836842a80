import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

export interface EmbedSettingsRow {
  enabled: boolean;
  frame_ancestors: string[];
  show_dashboard_chat: boolean;
}

/**
 * A tenant's embedding settings: the switch stays `tenants.embed_enabled` (migration 0001, true
 * unless turned off), the rest lives in `embed_settings`, with defaults until first written.
 */
export class EmbedSettingsRepository {
  constructor(private readonly db: Db) {}

  async find(tenantId: number, db: Db = this.db): Promise<EmbedSettingsRow> {
    const row = await db
      .selectFrom('tenants as t')
      .leftJoin('embed_settings as s', 's.tenant_id', 't.id')
      .select([
        't.embed_enabled as enabled',
        sql<string[]>`coalesce(s.frame_ancestors, '{}')`.as('frame_ancestors'),
        sql<boolean>`coalesce(s.show_dashboard_chat, true)`.as('show_dashboard_chat'),
      ])
      .where('t.id', '=', tenantId)
      .executeTakeFirstOrThrow();
    return row;
  }

  async update(
    tenantId: number,
    changes: { enabled?: boolean; frameAncestors?: string[]; showDashboardChat?: boolean },
    db: Db,
  ): Promise<void> {
    if (changes.enabled !== undefined)
      await db
        .updateTable('tenants')
        .set({ embed_enabled: changes.enabled })
        .where('id', '=', tenantId)
        .execute();
    if (changes.frameAncestors === undefined && changes.showDashboardChat === undefined) return;
    const set = {
      ...(changes.frameAncestors !== undefined ? { frame_ancestors: changes.frameAncestors } : {}),
      ...(changes.showDashboardChat !== undefined ? { show_dashboard_chat: changes.showDashboardChat } : {}),
    };
    await db
      .insertInto('embed_settings')
      .values({ tenant_id: tenantId, ...set })
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ ...set, updated_at: sql`now()` }))
      .execute();
  }

  async tokenSecret(tenantId: number): Promise<string | null> {
    const row = await this.db
      .selectFrom('embed_settings')
      .select('token_secret_enc')
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return row?.token_secret_enc ?? null;
  }

  /**
   * The tenant's sealed token secret, storing `candidate` if it has none yet. One statement: when
   * replicas race to create it, the first write wins and every replica reads that one back.
   */
  async ensureTokenSecret(tenantId: number, candidate: string): Promise<string> {
    const row = await this.db
      .insertInto('embed_settings')
      .values({ tenant_id: tenantId, token_secret_enc: candidate })
      .onConflict((oc) =>
        oc.column('tenant_id').doUpdateSet({
          token_secret_enc: sql`coalesce(embed_settings.token_secret_enc, excluded.token_secret_enc)`,
        }),
      )
      .returning('token_secret_enc')
      .executeTakeFirstOrThrow();
    return row.token_secret_enc as string;
  }
}
