import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ReportRow } from '../../db/schema.ts';
import { pageByKeys, type SortKey } from '../../pagination/keyset.ts';
import type { PageWindow } from '../../pagination/page.ts';
import type { Owner } from '../permissions/access.ts';
import { visibleFilter } from '../permissions/visibility.ts';
import { ownerColumns } from '../workspace/common.ts';
import type { ReportValues, ReportWithOwner } from './records.ts';

export type { ReportValues, ReportWithOwner } from './records.ts';

export interface ReportListFilter {
  deploymentId: number;
  viewerId: number;
  folderId?: number | null;
  workbookId?: number;
  search?: string;
  visibility: { folderIds: number[]; itemIds: number[] } | null;
}

export type ReportSort = 'name' | 'createdAt' | 'updatedAt' | 'lastViewedAt';

/** Sort keys; the id breaks ties so that the order is total and cursors are exact. */
const sortKeys: Record<ReportSort, SortKey[]> = {
  name: [{ expression: sql`r.name`, cast: 'text' }],
  createdAt: [{ expression: sql`r.created_at`, cast: 'timestamptz' }],
  updatedAt: [{ expression: sql`r.updated_at`, cast: 'timestamptz' }],
  lastViewedAt: [{ expression: sql`coalesce(rv.viewed_at, '-infinity'::timestamptz)`, cast: 'timestamptz' }],
};

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

/** Reports (saved queries with a chart); plain Kysely. */
export class ReportsRepository {
  constructor(private readonly db: Db) {}

  private withOwner(viewerId: number, db: Db = this.db) {
    return db
      .selectFrom('reports as r')
      .leftJoin('users as u', 'u.id', 'r.user_id')
      .leftJoin('report_views as rv', (j) =>
        j.onRef('rv.report_id', '=', 'r.id').on('rv.user_id', '=', viewerId),
      )
      .selectAll('r')
      .select([...ownerColumns, 'rv.viewed_at as last_viewed_at']);
  }

  find(
    deploymentId: number,
    id: number,
    viewerId: number,
    db: Db = this.db,
  ): Promise<ReportWithOwner | undefined> {
    return this.withOwner(viewerId, db)
      .where('r.deployment_id', '=', deploymentId)
      .where('r.id', '=', id)
      .executeTakeFirst();
  }

  /** The report holding a publicId in a deployment (unique: UNIQUE (deployment_id, public_id)). */
  findByPublicId(
    deploymentId: number,
    publicId: string,
    viewerId: number,
    db: Db = this.db,
  ): Promise<ReportWithOwner | undefined> {
    return this.withOwner(viewerId, db)
      .where('r.deployment_id', '=', deploymentId)
      .where('r.public_id', '=', publicId)
      .executeTakeFirst();
  }

  findMany(deploymentId: number, ids: number[], db: Db = this.db): Promise<ReportRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('reports')
      .selectAll()
      .where('deployment_id', '=', deploymentId)
      .where('id', 'in', ids)
      .execute();
  }

  ofWorkbook(workbookId: number, db: Db = this.db): Promise<ReportRow[]> {
    return db.selectFrom('reports').selectAll().where('workbook_id', '=', workbookId).orderBy('id').execute();
  }

  private filtered(f: ReportListFilter) {
    let q = this.withOwner(f.viewerId)
      .where('r.deployment_id', '=', f.deploymentId)
      .where(visibleFilter(f.visibility, 'r.folder_id', 'r.id'));
    if (f.folderId !== undefined) q = q.where('r.folder_id', f.folderId === null ? 'is' : '=', f.folderId);
    if (f.workbookId !== undefined) q = q.where('r.workbook_id', '=', f.workbookId);
    if (f.search) q = q.where(sql<boolean>`strpos(lower(r.name), lower(${f.search})) > 0`);
    return q;
  }

  list(f: ReportListFilter, sort: ReportSort, direction: 'asc' | 'desc', window: PageWindow) {
    const keys = [...sortKeys[sort], { expression: sql`r.id`, cast: 'integer' as const }];
    return pageByKeys(this.filtered(f), window, keys, direction).execute();
  }

  async count(f: ReportListFilter): Promise<number> {
    const row = await this.filtered(f)
      .clearSelect()
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    return row.n;
  }

  async insert(
    deploymentId: number,
    owner: Owner,
    v: ReportValues & { name: string; publicId: string },
    db: Db = this.db,
  ) {
    const row = await db
      .insertInto('reports')
      .values({
        deployment_id: deploymentId,
        public_id: v.publicId,
        name: v.name,
        title: v.title ?? null,
        description: v.description ?? null,
        sql_query: v.sqlQuery ?? null,
        json_query: v.jsonQuery ?? null,
        spec: json(v.spec),
        column_formats: json(v.columnFormats),
        fill_missing_rows: json(v.fillMissingRows),
        meta: json(v.meta),
        folder_id: v.folderId ?? null,
        workbook_id: v.workbookId ?? null,
        user_id: owner.userId,
        created_by: owner.userId,
        embed_user_id: owner.embedUserId,
        embed_tenant_id: owner.embedTenantId,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** Every content change bumps `version`, which report snapshots record (spec 2.3). */
  async update(id: number, v: ReportValues, db: Db = this.db) {
    const set: Record<string, unknown> = {};
    const columns: [keyof ReportValues, string, boolean][] = [
      ['name', 'name', false],
      ['title', 'title', false],
      ['description', 'description', false],
      ['sqlQuery', 'sql_query', false],
      ['jsonQuery', 'json_query', false],
      ['spec', 'spec', true],
      ['columnFormats', 'column_formats', true],
      ['fillMissingRows', 'fill_missing_rows', true],
      ['meta', 'meta', true],
      ['folderId', 'folder_id', false],
      ['workbookId', 'workbook_id', false],
      ['publicId', 'public_id', false],
    ];
    for (const [key, column, isJson] of columns) {
      if (v[key] !== undefined) set[column] = isJson ? json(v[key]) : v[key];
    }
    await db
      .updateTable('reports')
      .set({ ...set, version: sql<number>`version + 1`, updated_at: sql<Date>`now()` })
      .where('id', '=', id)
      .execute();
  }

  async delete(deploymentId: number, id: number, db: Db = this.db): Promise<boolean> {
    const r = await db
      .deleteFrom('reports')
      .where('deployment_id', '=', deploymentId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }

  async recordView(reportId: number, userId: number) {
    await this.db
      .insertInto('report_views')
      .values({ report_id: reportId, user_id: userId })
      .onConflict((oc) => oc.columns(['report_id', 'user_id']).doUpdateSet({ viewed_at: sql<Date>`now()` }))
      .execute();
  }

  /** Moves only: the location is not a content change, so `version` stays. */
  async setFolder(id: number, folderId: number | null, db: Db = this.db) {
    await db
      .updateTable('reports')
      .set({ folder_id: folderId, updated_at: sql<Date>`now()` })
      .where('id', '=', id)
      .execute();
  }
}
