import type { SecretBox } from '../../crypto/secrets.ts';
import type { Db } from '../../db/database.ts';
import type { AuditLog } from '../audit-log/service.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import type { ComposedModule } from '../module.ts';
import { GitRemotesRepository } from './git-remotes.ts';
import { gitRoutes } from './git-routes.ts';
import { ModelGitService } from './git-service.ts';
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
  /** Issue 25 item 2: the git remote's token and webhook secret are sealed at rest. */
  secrets: SecretBox;
}): ComposedModule<{
  dataModel: DataModelService;
  uploads: UploadService;
  modelVersions: ModelVersions;
  modelGit: ModelGitService;
}> {
  // Issue 25 item 1: each change of a default branch is a version; the deployment check is the data model's own.
  const modelVersions: ModelVersions = new ModelVersions(
    new ModelVersionsRepository(deps.db),
    deps.modelFiles,
    (p, id) => dataModel.deployment(p, id),
  );
  const dataModel = new DataModelService(deps.modelFiles, deps.deployments, deps.audit, modelVersions);
  const uploads = new UploadService(deps.uploads, deps.modelFiles, dataModel, deps.audit);
  // Issue 25 item 2: the branches are git branches of a repository kept in the store.
  const modelGit = new ModelGitService(dataModel, new GitRemotesRepository(deps.db), deps.secrets, deps.db);
  return {
    services: { dataModel, uploads, modelVersions, modelGit },
    routes: async (app) => {
      await app.register(dataModelRoutes, { dataModel });
      await app.register(uploadRoutes, { uploads });
      await app.register(modelVersionRoutes, { versions: modelVersions });
      await app.register(gitRoutes, { git: modelGit });
    },
  };
}
