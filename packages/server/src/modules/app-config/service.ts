import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import type { AuditLog } from '../audit-log/service.ts';
import type { AppConfigRepository } from './repository.ts';
import type { AppConfigResponse, UpdateAppConfigBody } from './schemas.ts';

type AppConfig = Static<typeof AppConfigResponse>;

/** The tenant's app config and theme: one row per tenant, defaults until set. */
export class AppConfigService {
  constructor(
    private readonly db: Db,
    private readonly repository: AppConfigRepository,
    /** Issue 22 item 5: each change is recorded in its own transaction. */
    private readonly audit: Pick<AuditLog, 'record'>,
  ) {}

  async get(principal: Principal, db?: Db): Promise<AppConfig> {
    const row = await this.repository.find(principal.tenantId, db);
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
    return this.db.transaction().execute(async (trx) => {
      const before = await this.get(principal, trx);
      await this.repository.upsert(principal.tenantId, input, trx);
      const after = await this.get(principal, trx);
      await this.audit.record(trx, principal, {
        action: 'app_config.update',
        targetType: 'app_config',
        targetId: principal.tenantId,
        before,
        after,
      });
      return after;
    });
  }
}
