import type { Db } from '../../db/database.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import { FolderTree } from '../folders/tree.ts';
import { AccessContext, type AccessSubject } from './access.ts';
import type { FolderRows } from './ports.ts';
import type { PermissionsRepository } from './repository.ts';

/** Builds the caller's AccessContext for a deployment; 404 when the deployment is not theirs. */
export class AccessResolver {
  constructor(
    private readonly deps: {
      deployments: DeploymentsService;
      folders: FolderRows;
      permissions: PermissionsRepository;
    },
  ) {}

  /** `db` lets a transaction read the tree it has locked (workspace/move-service.ts). */
  async resolve(principal: AccessSubject, deploymentId: number, db?: Db): Promise<AccessContext> {
    await this.deps.deployments.require(principal.tenantId, deploymentId, db);
    const embed = principal.embed;
    const [folders, grants, embedShared] = await Promise.all([
      this.deps.folders.treeRows(deploymentId, db),
      principal.embed
        ? this.deps.permissions.grantsReaching(deploymentId, { embedUserId: principal.embed.embedUserId }, db)
        : principal.role === 'admin'
          ? Promise.resolve([])
          : this.deps.permissions.grantsReaching(deploymentId, { userId: principal.userId }, db),
      embed?.creatorMode && embed.embedTenantId !== null
        ? this.deps.permissions.sharedWithEmbedTenant(deploymentId, embed.embedTenantId, db)
        : Promise.resolve([]),
    ]);
    return new AccessContext(principal, deploymentId, new FolderTree(folders), grants, new Set(embedShared));
  }
}
