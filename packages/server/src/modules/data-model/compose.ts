import type { Db } from '../../db/database.ts';
import type { AuditLog } from '../audit-log/service.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import type { ComposedModule } from '../module.ts';
import type { DataModelRepository } from './repository.ts';
import { dataModelRoutes } from './routes.ts';
import { DataModelService } from './service.ts';
import type { UploadRepository } from './upload-repository.ts';
import { uploadRoutes } from './upload-routes.ts';
import { UploadService } from './upload-service.ts';
import { ModelVersions } from './versions.ts';
import { ModelVersionsRepository } from './versions-repository.ts';
import { modelVersionRoutes } from './versions-routes.ts';

/** Data models and their uploads: the services and their routes (issue 22 item 0). */
export function composeDataModel(deps: {
  db: Db;
  modelFiles: DataModelRepository;
  uploads: UploadRepository;
  deployments: DeploymentsService;
  /** Issue 22 item 5: file, branch and upload changes are recorded. */
  audit: AuditLog;
}): ComposedModule<{ dataModel: DataModelService; uploads: UploadService; modelVersions: ModelVersions }> {
  // Issue 25 item 1: each change of a default branch is a version; the deployment check is the data model's own.
  const modelVersions: ModelVersions = new ModelVersions(
    new ModelVersionsRepository(deps.db),
    deps.modelFiles,
    (p, id) => dataModel.deployment(p, id),
  );
  const dataModel = new DataModelService(deps.modelFiles, deps.deployments, deps.audit, modelVersions);
  const uploads = new UploadService(deps.uploads, deps.modelFiles, dataModel, deps.audit);
  return {
    services: { dataModel, uploads, modelVersions },
    routes: async (app) => {
      await app.register(dataModelRoutes, { dataModel });
      await app.register(uploadRoutes, { uploads });
      await app.register(modelVersionRoutes, { versions: modelVersions });
    },
  };
}
