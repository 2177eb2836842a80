import { type ComposedModule, routesWith } from '../module.ts';
import { MoveService } from './move-service.ts';
import { workspaceRoutes } from './routes.ts';
import { WorkspaceService } from './service.ts';

/** The workspace listing and moves in it: the services and their routes (issue 22 item 0). */
export function composeWorkspace(deps: {
  workspace: ConstructorParameters<typeof WorkspaceService>[0];
  mover: ConstructorParameters<typeof MoveService>[0];
}): ComposedModule<{ workspace: WorkspaceService; mover: MoveService }> {
  const workspace = new WorkspaceService(deps.workspace);
  const mover = new MoveService(deps.mover);
  return { services: { workspace, mover }, routes: routesWith(workspaceRoutes, { workspace, mover }) };
}
