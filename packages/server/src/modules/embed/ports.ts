import type { Db } from '../../db/database.ts';
import type { DashboardRow } from '../../db/schema.ts';
import type { Published } from '../dashboards/records.ts';
import type { WorkbookWithOwner } from '../workbooks/records.ts';

/**
 * What embedding reads and writes of published dashboards, workbooks and embed tenants' shares;
 * composition.ts wires their repositories.
 */
export interface EmbeddableDashboards {
  current(workbookId: number, db?: Db): Promise<Published | undefined>;
  setAllowEmbed(dashboardId: number, allowEmbed: boolean, db: Db): Promise<void>;
}

export interface WorkbookLookup {
  find(deploymentId: number, id: number, db?: Db): Promise<WorkbookWithOwner | undefined>;
}

export interface EmbedShares {
  /** Whether the dashboard is shared with the embed tenant, or with every embed user. */
  isShared(dashboard: DashboardRow, embedTenantId: number | null): Promise<boolean>;
}

/**
 * Issue 25 item 5: where an opened dashboard is recorded (modules/usage-analytics view-log.ts).
 * `record` returns at once; the write runs behind the response.
 */
export interface DashboardViews {
  record(view: {
    tenantId: number;
    dashboardId: number;
    userId: number | null;
    embedUserId: number | null;
  }): void;
}
