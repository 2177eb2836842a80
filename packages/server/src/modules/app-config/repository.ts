import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

export interface AppConfigChanges {
  appTheme?: Record<string, unknown> | null;
  applyThemeGlobally?: boolean;
  creatorMode?: Record<string, unknown> | null;
  restrictDataDownload?: boolean;
}

const json = (v: Record<string, unknown> | null) => (v === null ? null : JSON.stringify(v));

/** `app_configs`: one row per tenant; plain Kysely, no rules. */
export class AppConfigRepository {
  constructor(private readonly db: Db) {}

  find(tenantId: number, db: Db = this.db) {
    return db.selectFrom('app_configs').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
  }

  /** Writes only the fields given; an upsert, so that two first writes cannot collide. */
  async upsert(tenantId: number, changes: AppConfigChanges, db: Db = this.db): Promise<void> {
    const set = {
      ...(changes.appTheme !== undefined ? { app_theme: json(changes.appTheme) } : {}),
      ...(changes.applyThemeGlobally !== undefined
        ? { apply_theme_globally: changes.applyThemeGlobally }
        : {}),
      ...(changes.creatorMode !== undefined ? { creator_mode: json(changes.creatorMode) } : {}),
      ...(changes.restrictDataDownload !== undefined
        ? { restrict_data_download: changes.restrictDataDownload }
        : {}),
    };
    await db
      .insertInto('app_configs')
      .values({ tenant_id: tenantId, ...set })
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ ...set, updated_at: sql<Date>`now()` }))
      .execute();
  }
}
