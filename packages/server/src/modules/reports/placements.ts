import { randomUUID } from 'node:crypto';
import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import { sha256 } from '../../crypto/secrets.ts';
import type { Db } from '../../db/database.ts';
import type { ReportPlacementRow } from '../../db/schema.ts';
import { NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import type { AuditLog } from '../audit-log/service.ts';
import { type AccessContext, contentSubject } from '../permissions/access.ts';
import type { AccessResolver } from '../permissions/resolver.ts';
import type {
  ConnectWorkbookBody,
  DisconnectWorkbookBody,
  PlacedReport,
  RefreshReportBody,
} from './placement-schemas.ts';
import type { PlacementAddress, ReportPlacementsRepository } from './placements-repository.ts';
import type { ReportsRepository, ReportWithOwner } from './repository.ts';
import { reportView } from './service.ts';

export interface ReportPlacementsDeps {
  db: Db;
  reports: Pick<ReportsRepository, 'find'>;
  placements: ReportPlacementsRepository;
  access: AccessResolver;
  audit: Pick<AuditLog, 'record'>;
}

/**
 * A report placed in spreadsheets (the reference's connect-workbook, disconnect and refresh; issue
 * 25 item 4). Placing a report's rows in one's own sheet, or refreshing them, changes nothing of
 * the report's definition: view access suffices (the reference), checked as `GET` checks it (spec
 * 4.2 and 4.5: a report the caller may not see is a 404, one they see but may not use a 403).
 */
export class ReportPlacements {
  constructor(private readonly deps: ReportPlacementsDeps) {}

  async connect(p: Principal, deploymentId: number, id: number, body: Static<typeof ConnectWorkbookBody>) {
    return this.change(p, deploymentId, id, async (row, trx) => {
      const location = splitLocation(body.resultLocation);
      const existing = body.placementId
        ? await this.deps.placements.find(id, { placementId: body.placementId }, trx)
        : [];
      const placed = await this.deps.placements.upsert(
        id,
        {
          placementId: body.placementId ?? existing[0]?.placement_id ?? randomUUID(),
          externalWorkbookId: body.externalWorkbookId,
          workbookName: body.workbookName ?? null,
          host: body.host ?? null,
          sheetId: body.sheetId ?? null,
          sheetName: body.sheetName ?? location.sheetName,
          anchorCell: body.anchorCell ?? location.anchorCell,
          endResultCell: body.endResultCell ?? location.endCell,
          resultLocation: body.resultLocation,
          resultChecksum: body.resultChecksum ?? null,
          queryChecksum: body.addressOnly ? null : queryChecksum(row),
          userId: accountUser(p),
        },
        trx,
      );
      // A placement given a new location under its old id moves: the old spot is not kept beside it.
      await this.deps.placements.remove(
        existing.filter((e) => e.id !== placed.id).map((e) => e.id),
        trx,
      );
      if (!body.addressOnly) await this.deps.placements.markReportRefreshed(id, accountUser(p), trx);
      return {
        action: 'report.connect_workbook',
        after: placementAudit(placed),
      };
    });
  }

  async disconnect(
    p: Principal,
    deploymentId: number,
    id: number,
    body: Static<typeof DisconnectWorkbookBody>,
  ) {
    const address = addressOf(body, true);
    return this.change(p, deploymentId, id, async (_row, trx) => {
      // A target that matches no placement succeeds and changes nothing (the reference: retries are safe).
      const matched = address ? await this.deps.placements.find(id, address, trx) : [];
      await this.deps.placements.remove(
        matched.map((m) => m.id),
        trx,
      );
      if (matched.length === 0) return null;
      return { action: 'report.disconnect_workbook', before: matched.map(placementAudit) };
    });
  }

  async refresh(p: Principal, deploymentId: number, id: number, body: Static<typeof RefreshReportBody>) {
    const address = addressOf(body, false);
    return this.change(p, deploymentId, id, async (row, trx) => {
      const matched = address ? await this.deps.placements.find(id, address, trx) : [];
      if (address && matched.length === 0) throw new NotFoundError('Placement');
      await this.deps.placements.markRefreshed(
        matched.map((m) => m.id),
        {
          userId: accountUser(p),
          queryChecksum: queryChecksum(row),
          resultChecksum: body.resultChecksum ?? null,
        },
        trx,
      );
      await this.deps.placements.markReportRefreshed(id, accountUser(p), trx);
      return {
        action: 'report.refresh',
        after: { placements: matched.map((m) => m.placement_id) },
      };
    });
  }

  /**
   * The report the caller may view, a change of its placements and its audit entry in one
   * transaction (null: nothing changed, nothing recorded), then the report as it is now.
   */
  private async change(
    p: Principal,
    deploymentId: number,
    id: number,
    write: (
      row: ReportWithOwner,
      trx: Db,
    ) => Promise<{ action: string; before?: unknown; after?: unknown } | null>,
  ): Promise<Static<typeof PlacedReport>> {
    const ctx = await this.deps.access.resolve(p, deploymentId);
    await this.deps.db.transaction().execute(async (trx) => {
      const row = await this.require(deploymentId, id, p.userId, trx);
      ctx.require(ctx.item('REPORT', row), 'view', contentSubject('REPORT', id));
      const change = await write(row, trx);
      if (change)
        await this.deps.audit.record(trx, p, {
          targetType: 'report',
          targetId: id,
          ...change,
          ...(change.after ? { after: { deploymentId, ...(change.after as object) } } : {}),
        });
    });
    return this.view(ctx, await this.require(deploymentId, id, p.userId));
  }

  private async view(ctx: AccessContext, row: ReportWithOwner): Promise<Static<typeof PlacedReport>> {
    const current = queryChecksum(row);
    const placements = await this.deps.placements.list(row.id);
    // An embed user sees no account user's identity (permissions/owner-privacy.ts).
    const account = ctx.embedTenantId === undefined;
    const refresher =
      account && row.refreshed_by !== null ? await this.deps.placements.user(row.refreshed_by) : undefined;
    return {
      ...reportView(row, ctx),
      currentQueryChecksum: current,
      refreshedBy: account ? row.refreshed_by : null,
      refreshedByUser: refresher
        ? {
            id: refresher.id,
            email: refresher.email,
            firstName: refresher.first_name,
            picture: refresher.picture,
          }
        : null,
      refreshedAt: row.refreshed_at?.toISOString() ?? null,
      externalWorkbookPlacements: placements.map((pl) => ({
        id: pl.placement_id,
        workbookId: pl.external_workbook_id,
        workbookName: pl.workbook_name,
        host: pl.host as 'GOOGLE_SHEETS' | 'EXCEL' | null,
        sheetId: pl.sheet_id,
        sheetName: pl.sheet_name,
        anchorCell: pl.anchor_cell,
        endResultCell: pl.end_result_cell,
        resultLocation: pl.result_location,
        resultChecksum: pl.result_checksum,
        queryChecksum: pl.query_checksum,
        syncStatus:
          pl.query_checksum === null ? 'UNKNOWN' : pl.query_checksum === current ? 'UP_TO_DATE' : 'CHANGED',
        placedAt: pl.placed_at.toISOString(),
        placedByUserId: account ? pl.placed_by : null,
        refreshedAt: pl.refreshed_at?.toISOString() ?? null,
        refreshedByUserId: account ? pl.refreshed_by : null,
      })),
    };
  }

  private async require(deploymentId: number, id: number, viewerId: number, db?: Db) {
    const row = await this.deps.reports.find(deploymentId, id, viewerId, db);
    if (!row) throw new NotFoundError(`Report ${id}`, 'report_not_found');
    return row;
  }
}

/** An embed user is no account user: placements record nobody for them. */
const accountUser = (p: Principal) => (p.userId > 0 ? p.userId : null);

/** What the report's rows come from: a placement filled from another query is stale. */
export function queryChecksum(row: Pick<ReportWithOwner, 'sql_query' | 'json_query'>): string {
  return sha256(JSON.stringify([row.sql_query, row.json_query]));
}

/** `Sheet1!A1:C9` or `'My sheet'!B2`: the sheet, the anchor cell and the range's last cell. */
function splitLocation(location: string) {
  const bang = location.lastIndexOf('!');
  const sheet =
    bang > 0
      ? location
          .slice(0, bang)
          .replace(/^'(.*)'$/, '$1')
          .replace(/''/g, "'")
      : null;
  const [anchor, end] = location.slice(bang + 1).split(':');
  const isCell = (c: string | undefined) => c !== undefined && /^\$?[A-Za-z]{1,3}\$?[0-9]{1,7}$/.test(c);
  return {
    sheetName: sheet,
    anchorCell: isCell(anchor) ? (anchor as string) : null,
    endCell: isCell(end) ? (end as string) : null,
  };
}

/**
 * The placement a body names (the reference): `placementId`; or `externalWorkbookId` with both
 * `sheetName` and `anchorCell`, or with a `resultLocation` naming both; `sheetId` only narrows.
 * A body naming a workbook but no complete spot addresses nothing (null). A body naming neither a
 * placement nor a workbook is a 400 for a disconnect, and the whole report for a refresh.
 */
function addressOf(body: Static<typeof DisconnectWorkbookBody>, required: boolean): PlacementAddress | null {
  if (body.placementId) return { placementId: body.placementId };
  if (!body.externalWorkbookId) {
    if (required)
      throw new ValidationError(
        'Name the placement: placementId, or externalWorkbookId with its sheet and anchor',
        [{ field: 'body/placementId', message: 'is required when externalWorkbookId is not given' }],
      );
    return null;
  }
  const sheetId = body.sheetId ?? null;
  if (body.sheetName && body.anchorCell)
    return {
      externalWorkbookId: body.externalWorkbookId,
      sheetName: body.sheetName,
      anchorCell: body.anchorCell,
      sheetId,
    };
  if (body.resultLocation)
    return { externalWorkbookId: body.externalWorkbookId, resultLocation: body.resultLocation, sheetId };
  if (!required)
    throw new ValidationError('A workbook names a placement with its sheet and anchor', [
      {
        field: 'body/sheetName',
        message: 'sheetName and anchorCell (or resultLocation) are required with externalWorkbookId',
      },
    ]);
  return null;
}

function placementAudit(pl: ReportPlacementRow) {
  return {
    placementId: pl.placement_id,
    externalWorkbookId: pl.external_workbook_id,
    resultLocation: pl.result_location,
  };
}
