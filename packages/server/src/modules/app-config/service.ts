import { sql } from 'kysely';
import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import type { AppConfigResponse, UpdateAppConfigBody } from './schemas.ts';

/** The tenant's app config and theme (issue 5 item 7): one row per tenant, defaults until set. */
export class AppConfigService {
  constructor(private readonly db: Db) {}

  async get(principal: Principal): Promise<Static<typeof AppConfigResponse>> {
    const row = await this.db
      .selectFrom('app_configs')
      .selectAll()
      .where('tenant_id', '=', principal.tenantId)
      .executeTakeFirst();
    return {
      appTheme: (row?.app_theme as Static<typeof AppConfigResponse>['appTheme']) ?? null,
      applyThemeGlobally: row?.apply_theme_globally ?? false,
      creatorMode: (row?.creator_mode as Static<typeof AppConfigResponse>['creatorMode']) ?? null,
      restrictDataDownload: false,
      sheetsAgentChatEnabled: false,
    };
  }

  /** Only the fields sent change; an upsert so that two first writes cannot collide. */
  async update(principal: Principal, input: Static<typeof UpdateAppConfigBody>) {
    const changes = {
      ...(input.appTheme !== undefined
        ? { app_theme: input.appTheme === null ? null : JSON.stringify(input.appTheme) }
        : {}),
      ...(input.applyThemeGlobally !== undefined ? { apply_theme_globally: input.applyThemeGlobally } : {}),
      ...(input.creatorMode !== undefined
        ? { creator_mode: input.creatorMode === null ? null : JSON.stringify(input.creatorMode) }
        : {}),
    };
    await this.db
      .insertInto('app_configs')
      .values({ tenant_id: principal.tenantId, ...changes })
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ ...changes, updated_at: sql<Date>`now()` }))
      .execute();
    return this.get(principal);
  }
}
