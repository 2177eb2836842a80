import type { Db } from '../../db/database.ts';
import type { ReportSnapshotRow, UserRow } from '../../db/schema.ts';
import type { DashboardVersion } from '../dashboard-data/records.ts';
import type { WorkbookWithOwner } from '../workbooks/records.ts';

/**
 * What notifications read of other modules' rows (users, workbooks, published dashboards);
 * composition.ts wires their repositories. Embed users are written through modules/embed-tenants.
 */
export interface UserLookup {
  find(tenantId: number, id: number, db?: Db): Promise<UserRow | undefined>;
  findByEmail(tenantId: number, email: string): Promise<UserRow | undefined>;
}

export interface WorkbookLookup {
  find(deploymentId: number, id: number, db?: Db): Promise<WorkbookWithOwner | undefined>;
}

export interface PublishedVersions {
  version(
    deploymentId: number,
    publicId: string,
    versionNumber: number | null,
  ): Promise<DashboardVersion | undefined>;
  snapshots(versionId: number): Promise<Map<number, ReportSnapshotRow>>;
}
