import type { Db } from '../../db/database.ts';
import type { ContentLevel, ContentPermissionRow } from '../../db/schema.ts';
import type { ContentTarget, Grantee } from '../permissions/content.ts';
import type { WorkbookWithOwner } from '../workbooks/records.ts';

/** What reports write of grants and read of workbooks; composition.ts wires the repositories. */
export interface GrantWriter {
  upsert(
    deploymentId: number,
    target: ContentTarget,
    grantee: Grantee,
    level: ContentLevel,
    db?: Db,
  ): Promise<ContentPermissionRow>;
}

export interface WorkbookLookup {
  find(deploymentId: number, id: number, db?: Db): Promise<WorkbookWithOwner | undefined>;
}
