import type { Db } from '../../db/database.ts';
import type { Published } from '../dashboards/records.ts';
import type { WorkbookWithOwner } from '../workbooks/records.ts';

/** What sharing dashboards with embed tenants reads and writes of workbooks and dashboards. */
export interface WorkbookLookup {
  find(deploymentId: number, id: number, db?: Db): Promise<WorkbookWithOwner | undefined>;
}

export interface EmbeddableDashboards {
  current(workbookId: number, db?: Db): Promise<Published | undefined>;
  setAllowEmbed(dashboardId: number, allowEmbed: boolean, db: Db): Promise<void>;
}
