import { Type } from 'typebox';
import { nullable, ResourceOwner, strict } from '../workspace/common.ts';
import { Report } from './schemas.ts';

/**
 * The reference's report placements in spreadsheets (connect-workbook, refresh; issue 25 item 4):
 * where a spreadsheet add-in put a report's rows, and the checksums it compares to tell whether
 * its copy is current.
 */
const text = (maxLength: number) => Type.String({ minLength: 1, maxLength });
const placementId = text(64);
const externalWorkbookId = text(512);
const sheetName = text(255);
const cell = Type.String({ minLength: 1, maxLength: 32, pattern: '^\\$?[A-Za-z]{1,3}\\$?[0-9]{1,7}$' });
const resultLocation = Type.String({
  minLength: 1,
  maxLength: 300,
  description: "A sheet and range, `Sheet1!A1` or `'My sheet'!B2:D9`",
});
const host = Type.Enum(['GOOGLE_SHEETS', 'EXCEL'] as const);

const ResultChecksumInput = Type.Object(
  {
    v: Type.Integer({ minimum: 1, maximum: 1000 }),
    chunks: Type.Array(
      Type.Object(
        {
          from: Type.Integer({ minimum: 0, maximum: 100_000_000 }),
          hash: Type.String({ minLength: 1, maxLength: 64 }),
          to: Type.Optional(nullable(Type.Integer({ minimum: 0, maximum: 100_000_000 }))),
        },
        strict,
      ),
      { maxItems: 2000 },
    ),
  },
  strict,
);

export const ConnectWorkbookBody = Type.Object(
  {
    externalWorkbookId,
    resultLocation,
    placementId: Type.Optional(nullable(placementId)),
    workbookName: Type.Optional(nullable(text(255))),
    host: Type.Optional(nullable(host)),
    sheetId: Type.Optional(nullable(text(255))),
    sheetName: Type.Optional(nullable(sheetName)),
    anchorCell: Type.Optional(nullable(cell)),
    endResultCell: Type.Optional(nullable(cell)),
    resultChecksum: Type.Optional(nullable(ResultChecksumInput)),
    addressOnly: Type.Optional(
      nullable(
        Type.Boolean({ description: 'Record where the report is placed without marking it refreshed' }),
      ),
    ),
  },
  strict,
);

/** The placement a disconnect or refresh names: `placementId`, or the workbook with sheet and anchor (or `resultLocation`). */
const addressFields = {
  placementId: Type.Optional(nullable(placementId)),
  externalWorkbookId: Type.Optional(nullable(externalWorkbookId)),
  resultLocation: Type.Optional(nullable(resultLocation)),
  sheetId: Type.Optional(nullable(text(255))),
  sheetName: Type.Optional(nullable(sheetName)),
  anchorCell: Type.Optional(nullable(cell)),
};

export const DisconnectWorkbookBody = Type.Object(addressFields, strict);

export const RefreshReportBody = Type.Object(
  { ...addressFields, resultChecksum: Type.Optional(nullable(ResultChecksumInput)) },
  strict,
);

export const ReportPlacement = Type.Object({
  id: Type.String(),
  workbookId: Type.String({ description: "The spreadsheet's own id (`externalWorkbookId`)" }),
  workbookName: Type.Union([Type.String(), Type.Null()]),
  host: Type.Union([host, Type.Null()]),
  sheetId: Type.Union([Type.String(), Type.Null()]),
  sheetName: Type.Union([Type.String(), Type.Null()]),
  anchorCell: Type.Union([Type.String(), Type.Null()]),
  endResultCell: Type.Union([Type.String(), Type.Null()]),
  resultLocation: Type.String(),
  resultChecksum: Type.Union([Type.Unknown(), Type.Null()]),
  queryChecksum: Type.Union([Type.String(), Type.Null()]),
  syncStatus: Type.Enum(['UP_TO_DATE', 'CHANGED', 'UNKNOWN'] as const, {
    description:
      "`CHANGED`: the report's query changed since this placement was filled; `UNKNOWN`: it never was",
  }),
  placedAt: Type.String({ format: 'date-time' }),
  placedByUserId: Type.Union([Type.Integer(), Type.Null()]),
  refreshedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  refreshedByUserId: Type.Union([Type.Integer(), Type.Null()]),
});

/** A report with its placements and refresh state (connect-workbook and refresh answer it). */
export const PlacedReport = Type.Object({
  ...Report.properties,
  currentQueryChecksum: Type.String({
    description: "Hash of the report's query: a placement filled from another is stale",
  }),
  refreshedBy: Type.Union([Type.Integer(), Type.Null()]),
  refreshedByUser: Type.Union([ResourceOwner, Type.Null()]),
  refreshedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  externalWorkbookPlacements: Type.Array(ReportPlacement),
});
