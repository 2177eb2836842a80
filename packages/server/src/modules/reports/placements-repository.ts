import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ReportPlacementRow } from '../../db/schema.ts';

export interface PlacementValues {
  placementId: string;
  externalWorkbookId: string;
  workbookName: string | null;
  host: string | null;
  sheetId: string | null;
  sheetName: string | null;
  anchorCell: string | null;
  endResultCell: string | null;
  resultLocation: string;
  resultChecksum: unknown;
  /** Null: the placement is only addressed (`addressOnly`), not filled: nothing refreshed yet. */
  queryChecksum: string | null;
  userId: number | null;
}

/** How a request names one placement (the reference's connect, disconnect and refresh bodies). */
export type PlacementAddress =
  | { placementId: string }
  | {
      externalWorkbookId: string;
      sheetName: string;
      anchorCell: string;
      sheetId: string | null;
    }
  | { externalWorkbookId: string; resultLocation: string; sheetId: string | null };

/** `report_placements` (migration 0031) and the report's own refresh columns; plain Kysely. */
export class ReportPlacementsRepository {
  constructor(private readonly db: Db) {}

  list(reportId: number, db: Db = this.db): Promise<ReportPlacementRow[]> {
    return db
      .selectFrom('report_placements')
      .selectAll()
      .where('report_id', '=', reportId)
      .orderBy('id')
      .execute();
  }

  async find(reportId: number, address: PlacementAddress, db: Db = this.db) {
    let q = db.selectFrom('report_placements').selectAll().where('report_id', '=', reportId);
    if ('placementId' in address) q = q.where('placement_id', '=', address.placementId);
    else {
      q = q.where('external_workbook_id', '=', address.externalWorkbookId);
      q =
        'resultLocation' in address
          ? q.where('result_location', '=', address.resultLocation)
          : q.where('sheet_name', '=', address.sheetName).where('anchor_cell', '=', address.anchorCell);
      // A sheet id narrows: a placement stored under another id is another tab (the reference).
      if (address.sheetId !== null) q = q.where('sheet_id', '=', address.sheetId);
    }
    return q.orderBy('id').execute();
  }

  /** One placement per workbook and location: a second connect of the same spot updates it. */
  async upsert(reportId: number, v: PlacementValues, db: Db = this.db): Promise<ReportPlacementRow> {
    const filled = v.queryChecksum !== null;
    const values = {
      report_id: reportId,
      placement_id: v.placementId,
      external_workbook_id: v.externalWorkbookId,
      workbook_name: v.workbookName,
      host: v.host,
      sheet_id: v.sheetId,
      sheet_name: v.sheetName,
      anchor_cell: v.anchorCell,
      end_result_cell: v.endResultCell,
      result_location: v.resultLocation,
      result_checksum: v.resultChecksum === null ? null : JSON.stringify(v.resultChecksum),
      query_checksum: v.queryChecksum,
      placed_by: v.userId,
      refreshed_by: filled ? v.userId : null,
      refreshed_at: filled ? new Date() : null,
    };
    return db
      .insertInto('report_placements')
      .values(values)
      .onConflict((oc) =>
        oc.columns(['report_id', 'external_workbook_id', 'result_location']).doUpdateSet((eb) => ({
          workbook_name: sql`coalesce(${eb.ref('excluded.workbook_name')}, report_placements.workbook_name)`,
          host: sql`coalesce(${eb.ref('excluded.host')}, report_placements.host)`,
          sheet_id: sql`coalesce(${eb.ref('excluded.sheet_id')}, report_placements.sheet_id)`,
          sheet_name: eb.ref('excluded.sheet_name'),
          anchor_cell: eb.ref('excluded.anchor_cell'),
          end_result_cell: eb.ref('excluded.end_result_cell'),
          ...(filled
            ? {
                result_checksum: eb.ref('excluded.result_checksum'),
                query_checksum: eb.ref('excluded.query_checksum'),
                refreshed_by: eb.ref('excluded.refreshed_by'),
                refreshed_at: eb.ref('excluded.refreshed_at'),
              }
            : {}),
        })),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async remove(ids: readonly number[], db: Db = this.db): Promise<number> {
    if (ids.length === 0) return 0;
    const result = await db.deleteFrom('report_placements').where('id', 'in', ids).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async markRefreshed(
    ids: readonly number[],
    v: { userId: number | null; queryChecksum: string; resultChecksum: unknown },
    db: Db = this.db,
  ): Promise<void> {
    if (ids.length === 0) return;
    await db
      .updateTable('report_placements')
      .set({
        refreshed_by: v.userId,
        refreshed_at: new Date(),
        query_checksum: v.queryChecksum,
        ...(v.resultChecksum === null ? {} : { result_checksum: JSON.stringify(v.resultChecksum) }),
      })
      .where('id', 'in', ids)
      .execute();
  }

  async markReportRefreshed(reportId: number, userId: number | null, db: Db = this.db): Promise<void> {
    await db
      .updateTable('reports')
      .set({ refreshed_by: userId, refreshed_at: new Date() })
      .where('id', '=', reportId)
      .execute();
  }

  /** Who refreshed the report last, for `refreshedByUser`. */
  user(id: number, db: Db = this.db) {
    return db
      .selectFrom('users')
      .select(['id', 'email', 'first_name', 'picture'])
      .where('id', '=', id)
      .executeTakeFirst();
  }
}
