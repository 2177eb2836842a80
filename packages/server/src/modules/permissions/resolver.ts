import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { NotFoundError } from '../../errors/domain-errors.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import type { FoldersRepository } from '../folders/repository.ts';
import { FolderTree } from '../folders/tree.ts';
import { AccessContext } from './access.ts';
import type { PermissionsRepository } from './repository.ts';

/** Builds the caller's AccessContext for a deployment; 404 when the deployment is not theirs. */
export class AccessResolver {
  constructor(
    private readonly deps: {
      deployments: DeploymentsService;
      folders: FoldersRepository;
      permissions: PermissionsRepository;
    },
  ) {}

  /** `db` lets a transaction read the tree it has locked (workspace/move-service.ts). */
  async resolve(principal: Principal, deploymentId: number, db?: Db): Promise<AccessContext> {
    if (db) {
      // Inside a transaction only the transaction may be used: PGlite has one connection.
      const found = await db
        .selectFrom('deployments')
        .select('id')
        .where('tenant_id', '=', principal.tenantId)
        .where('id', '=', deploymentId)
        .executeTakeFirst();
      if (!found) throw new NotFoundError(`Deployment ${deploymentId}`, 'deployment_not_found');
    } else {
      await this.deps.deployments.require(principal.tenantId, deploymentId);
    }
    const [folders, grants] = await Promise.all([
      this.deps.folders.treeRows(deploymentId, db),
      principal.role === 'admin'
        ? Promise.resolve([])
        : this.deps.permissions.grantsReaching(deploymentId, principal.userId, db),
    ]);
    return new AccessContext(principal, deploymentId, new FolderTree(folders), grants);
  }
}
