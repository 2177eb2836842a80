import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ContentLevel, ContentPermissionRow } from '../../db/schema.ts';

/**
 * The rows content kept as code describes, read in one go for a deployment (issue 25 item 6).
 * Read-only: every write goes through the owning module's service (apply.ts). Creator-mode content
 * (embed tenants' spaces, migration 0015) is not part of the account's workspace and is left out.
 */
export interface ContentRows {
  folders: { id: number; parent_id: number | null; name: string; position: number }[];
  workbooks: {
    id: number;
    folder_id: number | null;
    name: string;
    slug: string | null;
    meta: Record<string, unknown>;
    calculated_fields: Record<string, unknown>;
    dashboard_draft: Record<string, unknown> | null;
  }[];
  reports: {
    id: number;
    folder_id: number | null;
    workbook_id: number | null;
    public_id: string;
    name: string;
    title: string | null;
    description: string | null;
    sql_query: string | null;
    json_query: string | null;
    spec: unknown;
    column_formats: Record<string, unknown> | null;
    fill_missing_rows: { member: string; excludedDimensions?: string[] | null } | null;
    meta: Record<string, unknown> | null;
  }[];
  /** The newest published version of each workbook's dashboard. */
  published: {
    workbook_id: number;
    public_id: string;
    allow_embed: boolean;
    title: string | null;
    description: string | null;
    config: Record<string, unknown>;
  }[];
  notifications: {
    id: number;
    workbook_id: number;
    content_key: string | null;
    schedule_type: string;
    minute: number | null;
    hour: number | null;
    day_of_week: number | null;
    day_of_month: number | null;
    custom_cron: string | null;
    timezone: string;
    is_enabled: boolean;
    notification_enabled: boolean;
    notification_format: 'png' | 'pdf';
    filters: unknown[] | null;
    time_grains: unknown[] | null;
  }[];
  /** Grants to account users and groups, with the email or name that files name them by. */
  grants: (ContentPermissionRow & { email: string | null; group_name: string | null })[];
}

export class ContentRepository {
  constructor(private readonly db: Db) {}

  async read(deploymentId: number, db: Db = this.db): Promise<ContentRows> {
    const folders = await db
      .selectFrom('folders')
      .select(['id', 'parent_id', 'name', 'position'])
      .where('deployment_id', '=', deploymentId)
      .orderBy('id')
      .execute();
    const workbooks = await db
      .selectFrom('workbooks')
      .select(['id', 'folder_id', 'name', 'slug', 'meta', 'calculated_fields', 'dashboard_draft'])
      .where('deployment_id', '=', deploymentId)
      .where('embed_tenant_id', 'is', null)
      .where('embed_user_id', 'is', null)
      .orderBy('id')
      .execute();
    const reports = await db
      .selectFrom('reports')
      .select([
        'id',
        'folder_id',
        'workbook_id',
        'public_id',
        'name',
        'title',
        'description',
        'sql_query',
        'json_query',
        'spec',
        'column_formats',
        'fill_missing_rows',
        'meta',
      ])
      .where('deployment_id', '=', deploymentId)
      .where('embed_tenant_id', 'is', null)
      .where('embed_user_id', 'is', null)
      .orderBy('id')
      .execute();
    const published = await db
      .selectFrom('dashboards as d')
      .innerJoin('dashboard_versions as v', 'v.dashboard_id', 'd.id')
      .select(['d.workbook_id', 'd.public_id', 'd.allow_embed', 'v.title', 'v.description', 'v.config'])
      .where('d.deployment_id', '=', deploymentId)
      .where(
        'v.version_number',
        '=',
        sql<number>`(select max(version_number) from dashboard_versions w where w.dashboard_id = d.id)`,
      )
      .execute();
    const notifications = await db
      .selectFrom('notifications as n')
      .innerJoin('dashboards as d', 'd.id', 'n.dashboard_id')
      .select([
        'n.id',
        'd.workbook_id',
        'n.content_key',
        'n.schedule_type',
        'n.minute',
        'n.hour',
        'n.day_of_week',
        'n.day_of_month',
        'n.custom_cron',
        'n.timezone',
        'n.is_enabled',
        'n.notification_enabled',
        'n.notification_format',
        'n.filters',
        'n.time_grains',
      ])
      .where('n.deployment_id', '=', deploymentId)
      .orderBy('n.id')
      .execute();
    const grants = await this.grants(deploymentId, db);
    return {
      folders,
      workbooks,
      reports,
      published: published as ContentRows['published'],
      notifications,
      grants,
    };
  }

  grants(deploymentId: number, db: Db = this.db): Promise<ContentRows['grants']> {
    return db
      .selectFrom('content_permissions as p')
      .leftJoin('users as u', 'u.id', 'p.user_id')
      .leftJoin('groups as g', 'g.id', 'p.group_id')
      .selectAll('p')
      .select(['u.email', 'g.name as group_name'])
      .where('p.deployment_id', '=', deploymentId)
      .where((eb) => eb.or([eb('p.user_id', 'is not', null), eb('p.group_id', 'is not', null)]))
      .orderBy('p.id')
      .execute();
  }

  /** The account's users by email and groups by name, as grants in files name them. */
  async grantees(tenantId: number, db: Db = this.db) {
    const users = await db
      .selectFrom('users')
      .select(['id', 'email'])
      .where('tenant_id', '=', tenantId)
      .execute();
    const groups = await db
      .selectFrom('groups')
      .select(['id', 'name'])
      .where('tenant_id', '=', tenantId)
      .execute();
    return {
      users: new Map(users.map((u) => [u.email.toLowerCase(), u.id])),
      groups: new Map(groups.map((g) => [g.name, g.id])),
    };
  }

  /** The public id of a workbook's dashboard (a notification names its dashboard by it). */
  async dashboardPublicId(workbookId: number, db: Db = this.db): Promise<string> {
    const row = await db
      .selectFrom('dashboards')
      .select('public_id')
      .where('workbook_id', '=', workbookId)
      .executeTakeFirstOrThrow();
    return row.public_id;
  }

  /**
   * One content apply of a deployment at a time, across replicas: a transaction-scoped advisory
   * lock, so that two concurrent applies of one directory cannot both create its items.
   */
  async lockApply(deploymentId: number, db: Db): Promise<void> {
    await sql`select pg_advisory_xact_lock(5033, ${deploymentId}::int)`.execute(db);
  }
}

export type { ContentLevel };
