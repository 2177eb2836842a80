import type { Db } from '../../db/database.ts';
import type { ContentLevel, ContentPermissionRow, ReportRow } from '../../db/schema.ts';
import type { Published } from '../dashboards/records.ts';
import type { Owner } from '../permissions/access.ts';
import type { ContentTarget, Grantee } from '../permissions/content.ts';
import type { ReportValues } from '../reports/records.ts';

/** What workbooks read and write of dashboards, grants and reports; composition.ts wires them. */
export interface PublishedDashboards {
  current(workbookId: number, db?: Db): Promise<Published | undefined>;
}

export interface GrantWriter {
  upsert(
    deploymentId: number,
    target: ContentTarget,
    grantee: Grantee,
    level: ContentLevel,
    db?: Db,
  ): Promise<ContentPermissionRow>;
}

export interface ReportCopies {
  ofWorkbook(workbookId: number, db?: Db): Promise<ReportRow[]>;
  insert(
    deploymentId: number,
    owner: Owner,
    v: ReportValues & { name: string; publicId: string },
    db?: Db,
  ): Promise<number>;
}
