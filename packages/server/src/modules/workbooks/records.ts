import type { WorkbookRow } from '../../db/schema.ts';
import type { OwnerColumns } from '../workspace/common.ts';

export type WorkbookWithOwner = WorkbookRow & OwnerColumns;
