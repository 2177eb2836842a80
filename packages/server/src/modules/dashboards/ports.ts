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
  /** Saves the draft when still at `expectedVersion` (null: any); the new version, or null when it moved on. */
  saveDraft(
    id: number,
    draft: Record<string, unknown> | null,
    expectedVersion: number | null,
    savedBy: number | null,
    db?: Db,
  ): Promise<number | null>;
  /** Who saved the draft last (an account user). */
  draftSaver(
    id: number,
    db?: Db,
  ): Promise<{ id: number; email: string; first_name: string | null } | undefined>;
}
