import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { AppConfigRepository } from './repository.ts';
import type { AppConfigResponse, UpdateAppConfigBody } from './schemas.ts';

type AppConfig = Static<typeof AppConfigResponse>;

/** The tenant's app config and theme: one row per tenant, defaults until set. */
export class AppConfigService {
  constructor(private readonly repository: AppConfigRepository) {}

  async get(principal: Principal): Promise<AppConfig> {
    const row = await this.repository.find(principal.tenantId);
    return {
      appTheme: (row?.app_theme as AppConfig['appTheme']) ?? null,
      applyThemeGlobally: row?.apply_theme_globally ?? false,
      creatorMode: (row?.creator_mode as AppConfig['creatorMode']) ?? null,
      restrictDataDownload: row?.restrict_data_download ?? false,
      sheetsAgentChatEnabled: false,
    };
  }

  /** Only the fields sent change. */
  async update(principal: Principal, input: Static<typeof UpdateAppConfigBody>) {
    await this.repository.upsert(principal.tenantId, input);
    return this.get(principal);
  }
}
