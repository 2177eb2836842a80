import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import type { FolderWithOwner } from '../folders/records.ts';
import type { AccessContext } from '../permissions/access.ts';
import type { ReportWithOwner } from '../reports/records.ts';
import type { WorkbookWithOwner } from '../workbooks/records.ts';

/** What moving content reads and writes of folders, workbooks and reports; composition.ts wires them. */
export interface FolderRecords {
  lockTree(deploymentId: number, db: Db): Promise<void>;
  find(deploymentId: number, id: number, db?: Db): Promise<FolderWithOwner | undefined>;
  update(
    id: number,
    changes: { name?: string; position?: number; parentId?: number | null; userId: number },
    db?: Db,
  ): Promise<void>;
}

export interface WorkbookRecords {
  find(deploymentId: number, id: number, db?: Db): Promise<WorkbookWithOwner | undefined>;
  update(
    id: number,
    changes: {
      name?: string;
      meta?: Record<string, unknown>;
      slug?: string | null;
      folderId?: number | null;
      dashboardDraft?: Record<string, unknown> | null;
    },
    db?: Db,
  ): Promise<void>;
}

export interface ReportRecords {
  find(deploymentId: number, id: number, viewerId: number, db?: Db): Promise<ReportWithOwner | undefined>;
  setFolder(id: number, folderId: number | null, db?: Db): Promise<void>;
}

/** The single deletes' checks and writes, run inside a bulk-delete's transaction (spec 4.5). */
export interface ContentDeleter {
  deleteWithin(ctx: AccessContext, principal: Principal, id: number, trx: Db): Promise<void>;
}
