import { type ComposedModule, routesWith } from '../module.ts';
import { type BulkDeps, BulkService } from './bulk-service.ts';
import { MoveService } from './move-service.ts';
import { workspaceRoutes } from './routes.ts';
import { WorkspaceService } from './service.ts';

/** The workspace listing and moves in it: the services and their routes (issue 22 item 0). */
export function composeWorkspace(deps: {
  workspace: ConstructorParameters<typeof WorkspaceService>[0];
  mover: ConstructorParameters<typeof MoveService>[0];
  /** Bulk move and delete (issue 25 item 4): the single deletes of folders, workbooks and reports. */
  deleters: BulkDeps['deleters'];
}): ComposedModule<{ workspace: WorkspaceService; mover: MoveService; bulk: BulkService }> {
  const workspace = new WorkspaceService(deps.workspace);
  const mover = new MoveService(deps.mover);
  const bulk = new BulkService({
    db: deps.mover.db,
    folders: deps.mover.folders,
    access: deps.mover.access,
    mover,
    deleters: deps.deleters,
  });
  return {
    services: { workspace, mover, bulk },
    routes: routesWith(workspaceRoutes, { workspace, mover, bulk }),
  };
}
