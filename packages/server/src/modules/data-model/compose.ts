import type { AuditLog } from '../audit-log/service.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import type { ComposedModule } from '../module.ts';
import type { DataModelRepository } from './repository.ts';
import { dataModelRoutes } from './routes.ts';
import { DataModelService } from './service.ts';
import type { UploadRepository } from './upload-repository.ts';
import { uploadRoutes } from './upload-routes.ts';
import { UploadService } from './upload-service.ts';

/** Data models and their uploads: the services and their routes (issue 22 item 0). */
export function composeDataModel(deps: {
  modelFiles: DataModelRepository;
  uploads: UploadRepository;
  deployments: DeploymentsService;
  /** Issue 22 item 5: file, branch and upload changes are recorded. */
  audit: AuditLog;
}): ComposedModule<{ dataModel: DataModelService; uploads: UploadService }> {
  const dataModel = new DataModelService(deps.modelFiles, deps.deployments, deps.audit);
  const uploads = new UploadService(deps.uploads, deps.modelFiles, dataModel, deps.audit);
  return {
    services: { dataModel, uploads },
    routes: async (app) => {
      await app.register(dataModelRoutes, { dataModel });
      await app.register(uploadRoutes, { uploads });
    },
  };
}
