import type { Db } from '../../db/database.ts';
import type { DeploymentRow } from '../../db/schema.ts';
import type { DeploymentChanges } from '../deployments/records.ts';

/** What data-API tokens write of deployments and read of their model branches. */
export interface DeploymentRecords {
  transaction<T>(fn: (trx: Db) => Promise<T>): Promise<T>;
  update(
    tenantId: number,
    id: number,
    changes: DeploymentChanges,
    db?: Db,
  ): Promise<DeploymentRow | undefined>;
}

export interface ModelBranches {
  branches(deploymentId: number): Promise<string[]>;
}
