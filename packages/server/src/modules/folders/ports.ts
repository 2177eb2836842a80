import type { Db } from '../../db/database.ts';
import type { ContentLevel, ContentPermissionRow } from '../../db/schema.ts';
import type { ContentTarget, Grantee } from '../permissions/content.ts';

/** What folders write of grants (modules/permissions owns them). */
export interface GrantWriter {
  upsert(
    deploymentId: number,
    target: ContentTarget,
    grantee: Grantee,
    level: ContentLevel,
    db?: Db,
  ): Promise<ContentPermissionRow>;
}
