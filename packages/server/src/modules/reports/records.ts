import type { ReportRow } from '../../db/schema.ts';
import type { OwnerColumns } from '../workspace/common.ts';

export type ReportWithOwner = ReportRow & OwnerColumns & { last_viewed_at: Date | null };

export interface ReportValues {
  name?: string;
  title?: string | null;
  description?: string | null;
  sqlQuery?: string | null;
  jsonQuery?: string | null;
  spec?: unknown;
  columnFormats?: Record<string, unknown> | null;
  fillMissingRows?: { member: string; excludedDimensions?: string[] | null } | null;
  meta?: Record<string, unknown> | null;
  folderId?: number | null;
  workbookId?: number | null;
  publicId?: string;
}
