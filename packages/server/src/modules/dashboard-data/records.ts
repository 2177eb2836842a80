import type { DashboardRow, DashboardVersionRow } from '../../db/schema.ts';

export interface DashboardVersion {
  dashboard: DashboardRow;
  version: DashboardVersionRow;
}
