import type { Db } from '../../db/database.ts';
import type { ReportRow } from '../../db/schema.ts';
import type { WorkbookWithOwner } from '../workbooks/records.ts';

/** What publishing reads of reports and reads and writes of workbooks; composition.ts wires them. */
export interface ReportRecords {
  findMany(deploymentId: number, ids: number[], db?: Db): Promise<ReportRow[]>;
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
