import type { Db } from '../../db/database.ts';
import type { UserRow } from '../../db/schema.ts';
import type { TreeFolder } from '../folders/tree.ts';
import type { GroupWithCount } from '../groups/records.ts';
import type { ReportWithOwner } from '../reports/records.ts';
import type { WorkbookWithOwner } from '../workbooks/records.ts';

/** What permissions read of other modules' rows; composition.ts wires their repositories. */
export interface FolderRows {
  treeRows(deploymentId: number, db?: Db): Promise<TreeFolder[]>;
}

export interface UserLookup {
  find(tenantId: number, id: number, db?: Db): Promise<UserRow | undefined>;
}

export interface GroupLookup {
  find(tenantId: number, id: number, db?: Db): Promise<GroupWithCount | undefined>;
}

export interface ReportLookup {
  find(deploymentId: number, id: number, viewerId: number, db?: Db): Promise<ReportWithOwner | undefined>;
}

export interface WorkbookLookup {
  find(deploymentId: number, id: number, db?: Db): Promise<WorkbookWithOwner | undefined>;
}
