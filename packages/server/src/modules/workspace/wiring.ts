import type { Db } from '../../db/database.ts';
import type { App } from '../../http/types.ts';
import { AppConfigRepository } from '../app-config/repository.ts';
import { appConfigRoutes } from '../app-config/routes.ts';
import { AppConfigService } from '../app-config/service.ts';
import { DashboardsRepository } from '../dashboards/repository.ts';
import { dashboardRoutes } from '../dashboards/routes.ts';
import { DashboardsService } from '../dashboards/service.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import { FoldersRepository } from '../folders/repository.ts';
import { folderRoutes } from '../folders/routes.ts';
import { FoldersService } from '../folders/service.ts';
import { GroupsRepository } from '../groups/repository.ts';
import { PermissionsRepository } from '../permissions/repository.ts';
import { AccessResolver } from '../permissions/resolver.ts';
import { permissionRoutes } from '../permissions/routes.ts';
import { PermissionsService } from '../permissions/service.ts';
import { ReportsRepository } from '../reports/repository.ts';
import { reportRoutes } from '../reports/routes.ts';
import { ReportsService } from '../reports/service.ts';
import { UsersRepository } from '../users/repository.ts';
import { WorkbookDuplicator } from '../workbooks/duplicate.ts';
import { WorkbooksRepository } from '../workbooks/repository.ts';
import { workbookRoutes } from '../workbooks/routes.ts';
import { WorkbooksService } from '../workbooks/service.ts';
import { MoveService } from './move-service.ts';
import { WorkspaceRepository } from './repository.ts';
import { workspaceRoutes } from './routes.ts';
import { WorkspaceService } from './service.ts';

/** Wires the workspace-content modules (issue 5); each service receives exactly what it uses. */
export function createContentServices(db: Db, deployments: DeploymentsService) {
  const folders = new FoldersRepository(db);
  const permissions = new PermissionsRepository(db);
  const workbookRows = new WorkbooksRepository(db);
  const reportRows = new ReportsRepository(db);
  const dashboardRows = new DashboardsRepository(db);
  const access = new AccessResolver({ deployments, folders, permissions });
  const workbooks = new WorkbooksService({
    db,
    workbooks: workbookRows,
    dashboards: dashboardRows,
    permissions,
    access,
  });
  const publishing = new DashboardsService({
    db,
    dashboards: dashboardRows,
    workbooks: workbookRows,
    reports: reportRows,
    access,
  });
  return {
    access,
    folders: new FoldersService({ db, folders, permissions, access }),
    workbooks,
    duplicator: new WorkbookDuplicator({
      db,
      workbooks,
      workbookRows,
      reports: reportRows,
      dashboards: dashboardRows,
      publishing,
      permissions,
      access,
    }),
    reports: new ReportsService({ db, reports: reportRows, workbooks: workbookRows, permissions, access }),
    dashboards: publishing,
    workspace: new WorkspaceService({ access, repository: new WorkspaceRepository(db) }),
    mover: new MoveService({
      db,
      folders,
      workbooks: workbookRows,
      workbookViews: workbooks,
      reports: reportRows,
      access,
    }),
    permissions: new PermissionsService({
      permissions,
      users: new UsersRepository(db),
      groups: new GroupsRepository(db),
      workbooks: workbookRows,
      reports: reportRows,
      access,
    }),
    appConfig: new AppConfigService(new AppConfigRepository(db)),
  };
}

export type ContentServices = ReturnType<typeof createContentServices>;

export function contentRoutes(app: App, s: ContentServices) {
  folderRoutes(app, s.folders);
  workbookRoutes(app, s.workbooks, s.duplicator);
  dashboardRoutes(app, s.dashboards);
  reportRoutes(app, s.reports);
  workspaceRoutes(app, s.workspace, s.mover);
  permissionRoutes(app, s.permissions);
  appConfigRoutes(app, s.appConfig);
}
