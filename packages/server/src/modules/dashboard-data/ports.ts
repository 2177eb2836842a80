import type { Db } from '../../db/database.ts';
import type { UserRow } from '../../db/schema.ts';
import type { ReportWithOwner } from '../reports/records.ts';
import type { WorkbookWithOwner } from '../workbooks/records.ts';

/** What dashboard data reads of users, groups, workbooks and reports; composition.ts wires them. */
export interface UserLookup {
  find(tenantId: number, id: number, db?: Db): Promise<UserRow | undefined>;
}

export interface GroupNames {
  namesOfUser(userId: number): Promise<string[]>;
}

export interface WorkbookLookup {
  find(deploymentId: number, id: number, db?: Db): Promise<WorkbookWithOwner | undefined>;
}

export interface ReportLookup {
  find(deploymentId: number, id: number, viewerId: number, db?: Db): Promise<ReportWithOwner | undefined>;
}

/** Whether the tenant turned data downloads off (app config `restrictDataDownload`, spec 2.3). */
export interface DownloadPolicy {
  restricted(tenantId: number): Promise<boolean>;
}
