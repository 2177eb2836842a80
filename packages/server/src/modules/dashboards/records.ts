import type { DashboardRow, DashboardVersionRow, ReportSnapshotRow } from '../../db/schema.ts';

/** A snapshot with its semantic query also as text, exactly as the report held it (`jsonQuery`). */
export type PublishedSnapshot = ReportSnapshotRow & { json_query: string | null };

export interface Published {
  dashboard: DashboardRow;
  version: DashboardVersionRow;
  snapshots: PublishedSnapshot[];
  /** The account's app-config setting (spec 2.3), which every published dashboard reports. */
  restrictDataDownload: boolean;
}
