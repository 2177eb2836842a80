import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import type { AuditLog } from '../audit-log/service.ts';
import { frameAncestorsPolicy } from './frame-ancestors.ts';
import type { EmbedSettings, UpdateEmbedSettingsBody } from './schemas.ts';
import type { EmbedSettingsRepository } from './settings-repository.ts';

/**
 * A tenant's embedding settings: on or off (spec 4.3 rule 4; on unless an admin turns it off, so
 * that a newcomer can try embedding on the first tenant at once), the origins allowed to frame
 * the embed pages, and the account-wide `showDashboardChat` that sessions inherit.
 */
export class EmbedSettingsService {
  constructor(
    private readonly db: Db,
    private readonly repository: EmbedSettingsRepository,
    /** Issue 22 item 5: each change is recorded in its own transaction. */
    private readonly audit: Pick<AuditLog, 'record'>,
  ) {}

  async get(principal: Pick<Principal, 'tenantId'>, db?: Db): Promise<Static<typeof EmbedSettings>> {
    const row = await this.repository.find(principal.tenantId, db);
    return {
      enabled: row.enabled,
      frameAncestors: row.frame_ancestors,
      showDashboardChat: row.show_dashboard_chat,
    };
  }

  async update(principal: Principal, body: Static<typeof UpdateEmbedSettingsBody>) {
    return this.db.transaction().execute(async (trx) => {
      const before = await this.get(principal, trx);
      await this.repository.update(principal.tenantId, body, trx);
      const after = await this.get(principal, trx);
      await this.audit.record(trx, principal, {
        action: 'embed_settings.update',
        targetType: 'embed_settings',
        targetId: principal.tenantId,
        before,
        after,
      });
      return after;
    });
  }

  /** The `Content-Security-Policy` header value for the tenant's embed pages (frame-ancestors.ts). */
  async frameAncestorsHeader(tenantId: number): Promise<string> {
    return frameAncestorsPolicy((await this.repository.find(tenantId)).frame_ancestors);
  }
}
