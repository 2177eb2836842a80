import type { Db } from '../../db/database.ts';
import type { EmbedDashboardsService } from '../embed/dashboard-service.ts';
import { type ComposedModule, routesWith } from '../module.ts';
import type { AccessResolver } from '../permissions/resolver.ts';
import { AudienceRepository } from './audience-repository.ts';
import type { CommentedWorkbooks, PublishedDashboards } from './ports.ts';
import { CommentsRepository } from './repository.ts';
import { commentRoutes } from './routes.ts';
import { CommentsService } from './service.ts';

/** Dashboard comments (issue 25 item 4), built from what the workspace and embedding already have. */
export function composeComments(deps: {
  db: Db;
  dashboards: PublishedDashboards;
  workbooks: CommentedWorkbooks;
  embedDashboards: EmbedDashboardsService;
  access: AccessResolver;
}): ComposedModule<{ comments: CommentsService }> {
  const comments = new CommentsService({
    comments: new CommentsRepository(deps.db),
    audience: new AudienceRepository(deps.db),
    embedDashboards: deps.embedDashboards,
    dashboards: deps.dashboards,
    workbooks: deps.workbooks,
    access: deps.access,
  });
  return { services: { comments }, routes: routesWith(commentRoutes, { comments }) };
}
