import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
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
  ) {}

  async get(principal: Pick<Principal, 'tenantId'>): Promise<Static<typeof EmbedSettings>> {
    const row = await this.repository.find(principal.tenantId);
    return {
      enabled: row.enabled,
      frameAncestors: row.frame_ancestors,
      showDashboardChat: row.show_dashboard_chat,
    };
  }

  async update(principal: Principal, body: Static<typeof UpdateEmbedSettingsBody>) {
    await this.db.transaction().execute((trx) => this.repository.update(principal.tenantId, body, trx));
    return this.get(principal);
  }

  /** The `Content-Security-Policy` header value for the tenant's embed pages (frame-ancestors.ts). */
  async frameAncestorsHeader(tenantId: number): Promise<string> {
    return frameAncestorsPolicy((await this.repository.find(tenantId)).frame_ancestors);
  }
}
