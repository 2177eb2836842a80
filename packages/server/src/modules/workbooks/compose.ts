import { type ComposedModule, routesWith } from '../module.ts';
import { type DuplicateDeps, WorkbookDuplicator } from './duplicate.ts';
import { workbookRoutes } from './routes.ts';
import { WorkbooksService } from './service.ts';

/** Workbooks and their duplication: the services and their routes (issue 22 item 0). */
export function composeWorkbooks(deps: {
  workbooks: ConstructorParameters<typeof WorkbooksService>[0];
  /** The duplicator's dependencies but the workbooks service, which it is given from here. */
  duplicator: Omit<DuplicateDeps, 'workbooks'>;
}): ComposedModule<{ workbooks: WorkbooksService; duplicator: WorkbookDuplicator }> {
  const workbooks = new WorkbooksService(deps.workbooks);
  const duplicator = new WorkbookDuplicator({ ...deps.duplicator, workbooks });
  return {
    services: { workbooks, duplicator },
    routes: routesWith(workbookRoutes, { workbooks, duplicator }),
  };
}
