import type { DashboardConfig } from '@tessera/dashboard';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { DashboardRow, DashboardVersionRow, ReportSnapshotRow } from '../../db/schema.ts';
import { type PageWindow, pageById } from '../../pagination/page.ts';
import type { Published } from './records.ts';

export type { Published, PublishedSnapshot } from './records.ts';

/** A version as listed (history): who published it, by name, as well as by id. */
export type VersionSummary = DashboardVersionRow & {
  publisher_email: string | null;
  publisher_first_name: string | null;
};

/** A snapshot to write; `semantic_query` is the report's JSON text, stored as written. */
export type NewSnapshot = Omit<ReportSnapshotRow, 'id' | 'dashboard_version_id' | 'semantic_query'> & {
  semantic_query: string | null;
};

const json = (v: unknown) => (v === null ? null : JSON.stringify(v));

/** Published dashboards, their versions and report snapshots; plain Kysely. */
export class DashboardsRepository {
  constructor(private readonly db: Db) {}

  /** The newest version of a workbook's dashboard, or undefined before the first publish. */
  current(workbookId: number, db: Db = this.db): Promise<Published | undefined> {
    return this.atVersion(workbookId, null, db);
  }

  /**
   * Version `versionNumber` of a workbook's dashboard (null: the newest), with its snapshots, or
   * undefined when there is no such version.
   */
  async atVersion(
    workbookId: number,
    versionNumber: number | null,
    db: Db = this.db,
  ): Promise<Published | undefined> {
    const dashboard = await db
      .selectFrom('dashboards')
      .selectAll()
      .where('workbook_id', '=', workbookId)
      .executeTakeFirst();
    if (!dashboard) return undefined;
    let versions = db.selectFrom('dashboard_versions').selectAll().where('dashboard_id', '=', dashboard.id);
    versions =
      versionNumber === null
        ? versions.orderBy('version_number', 'desc').limit(1)
        : versions.where('version_number', '=', versionNumber);
    const version = await versions.executeTakeFirst();
    if (!version) return undefined;
    const snapshots = await db
      .selectFrom('report_snapshots')
      .selectAll()
      .select(sql<string | null>`semantic_query::text`.as('json_query'))
      .where('dashboard_version_id', '=', version.id)
      .orderBy('id')
      .execute();
    const config = await db
      .selectFrom('deployments')
      .innerJoin('app_configs', 'app_configs.tenant_id', 'deployments.tenant_id')
      .select('app_configs.restrict_data_download')
      .where('deployments.id', '=', dashboard.deployment_id)
      .executeTakeFirst();
    return { dashboard, version, snapshots, restrictDataDownload: config?.restrict_data_download ?? false };
  }

  /**
   * The versions of a workbook's dashboard in id order (the order they were published), with the
   * publisher's name and email, without their configs' snapshots.
   */
  listVersions(workbookId: number, window: PageWindow, db: Db = this.db): Promise<VersionSummary[]> {
    return pageById(
      db
        .selectFrom('dashboard_versions as v')
        .innerJoin('dashboards as d', 'd.id', 'v.dashboard_id')
        .leftJoin('users as u', 'u.id', 'v.created_by')
        .selectAll('v')
        .select(['u.email as publisher_email', 'u.first_name as publisher_first_name'])
        .where('d.workbook_id', '=', workbookId)
        .orderBy('v.id'),
      window,
      'v.id',
    ).execute();
  }

  /**
   * Creates or locks the workbook's dashboard row. The upsert takes the row lock, so parallel
   * publishes of one workbook queue here and each reads the version number the previous one wrote.
   */
  async lockDashboard(
    input: {
      deploymentId: number;
      workbookId: number;
      publicId: string;
      /** null: published by an embed user (creator mode), who is no account user. */
      userId: number | null;
      fromShared: boolean;
    },
    db: Db,
  ): Promise<DashboardRow> {
    return db
      .insertInto('dashboards')
      .values({
        deployment_id: input.deploymentId,
        workbook_id: input.workbookId,
        public_id: input.publicId,
        from_shared_workspace: input.fromShared,
        created_by: input.userId,
      })
      .onConflict((oc) => oc.column('workbook_id').doUpdateSet({ updated_at: sql<Date>`now()` }))
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async setAllowEmbed(dashboardId: number, allowEmbed: boolean, db: Db) {
    await db
      .updateTable('dashboards')
      .set({ allow_embed: allowEmbed })
      .where('id', '=', dashboardId)
      .execute();
  }

  /**
   * Archives the published version and adds the next one with its snapshots (one insert);
   * (dashboard, version) is unique.
   */
  async addVersion(
    dashboardId: number,
    input: {
      title: string | null;
      description: string | null;
      config: DashboardConfig;
      userId: number | null;
    },
    snapshots: NewSnapshot[],
    db: Db,
  ): Promise<void> {
    await db
      .updateTable('dashboard_versions')
      .set({ status: 'archived' })
      .where('dashboard_id', '=', dashboardId)
      .where('status', '=', 'published')
      .execute();
    const version = await db
      .insertInto('dashboard_versions')
      .values({
        dashboard_id: dashboardId,
        version_number: sql<number>`(select coalesce(max(version_number), 0) + 1 from dashboard_versions where dashboard_id = ${dashboardId})`,
        status: 'published',
        title: input.title,
        description: input.description,
        config: JSON.stringify(input.config),
        created_by: input.userId,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (snapshots.length === 0) return;
    await db
      .insertInto('report_snapshots')
      .values(
        snapshots.map((s) => ({
          ...s,
          dashboard_version_id: version.id,
          spec: json(s.spec),
          meta: json(s.meta),
          preferences: json(s.preferences),
          fill_missing_rows: json(s.fill_missing_rows),
        })),
      )
      .execute();
  }
}
