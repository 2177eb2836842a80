import { type ComposedModule, routesWith } from '../module.ts';
import { folderRoutes } from './routes.ts';
import { FoldersService } from './service.ts';

/** Workspace folders: the service and its routes (issue 22 item 0; composition.ts lists the modules). */
export function composeFolders(
  deps: ConstructorParameters<typeof FoldersService>[0],
): ComposedModule<{ folders: FoldersService }> {
  const folders = new FoldersService(deps);
  return { services: { folders }, routes: routesWith(folderRoutes, { folders }) };
}
