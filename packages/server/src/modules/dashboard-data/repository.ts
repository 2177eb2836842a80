import type { Db } from '../../db/database.ts';
import type { ReportSnapshotRow } from '../../db/schema.ts';
import type { DashboardVersion } from './records.ts';

export type { DashboardVersion } from './records.ts';

/** Read-only access to published dashboards by `publicId` (the viewer's address of a dashboard). */
export class DashboardDataRepository {
  constructor(private readonly db: Db) {}

  /**
   * The dashboard with `publicId` in this deployment, at `versionNumber` or, by default, the
   * current (`published`) version. Archived versions stay readable by number: a notification or
   * an embed pinned to a version keeps rendering what was published then.
   */
  async version(
    deploymentId: number,
    publicId: string,
    versionNumber: number | null,
  ): Promise<DashboardVersion | undefined> {
    const dashboard = await this.db
      .selectFrom('dashboards')
      .selectAll()
      .where('deployment_id', '=', deploymentId)
      .where('public_id', '=', publicId)
      .executeTakeFirst();
    if (!dashboard) return undefined;
    let q = this.db.selectFrom('dashboard_versions').selectAll().where('dashboard_id', '=', dashboard.id);
    q =
      versionNumber === null
        ? q.where('status', '=', 'published')
        : q.where('version_number', '=', versionNumber);
    const version = await q.orderBy('version_number', 'desc').limit(1).executeTakeFirst();
    return version ? { dashboard, version } : undefined;
  }

  snapshot(versionId: number, reportId: number): Promise<ReportSnapshotRow | undefined> {
    return this.db
      .selectFrom('report_snapshots')
      .selectAll()
      .where('dashboard_version_id', '=', versionId)
      .where('report_id', '=', reportId)
      .executeTakeFirst();
  }

  /**
   * Every report snapshot of a version, by report id, in one read: what a render (or any caller
   * reading several widgets of one version) looks up instead of one read per widget.
   */
  async snapshots(versionId: number): Promise<Map<number, ReportSnapshotRow>> {
    const rows = await this.db
      .selectFrom('report_snapshots')
      .selectAll()
      .where('dashboard_version_id', '=', versionId)
      .execute();
    return new Map(rows.map((r) => [r.report_id, r]));
  }
}
