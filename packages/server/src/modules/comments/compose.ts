import type { Db } from '../../db/database.ts';
import type { DashboardsRepository } from '../dashboards/repository.ts';
import type { EmbedDashboardsService } from '../embed/dashboard-service.ts';
import type { AccessResolver } from '../permissions/resolver.ts';
import type { WorkbooksRepository } from '../workbooks/repository.ts';
import { AudienceRepository } from './audience-repository.ts';
import { CommentsRepository } from './repository.ts';
import { CommentsService } from './service.ts';

/** Dashboard comments (issue 25 item 4), built from what the workspace and embedding already have. */
export function composeComments(deps: {
  db: Db;
  dashboards: DashboardsRepository;
  workbooks: WorkbooksRepository;
  embedDashboards: EmbedDashboardsService;
  access: AccessResolver;
}): CommentsService {
  return new CommentsService({
    comments: new CommentsRepository(deps.db),
    audience: new AudienceRepository(deps.db),
    embedDashboards: deps.embedDashboards,
    dashboards: deps.dashboards,
    workbooks: deps.workbooks,
    access: deps.access,
  });
}
