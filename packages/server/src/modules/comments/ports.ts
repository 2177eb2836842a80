import type { Published } from '../dashboards/records.ts';
import type { WorkbookWithOwner } from '../workbooks/records.ts';

/** What comments read of workbooks and their published dashboards; composition.ts wires the repositories. */
export interface CommentedWorkbooks {
  find(deploymentId: number, id: number): Promise<WorkbookWithOwner | undefined>;
}

export interface PublishedDashboards {
  current(workbookId: number): Promise<Published | undefined>;
}
