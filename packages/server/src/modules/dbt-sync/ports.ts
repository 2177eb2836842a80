import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';

/**
 * What dbt sync needs of the data model (modules/data-model owns deployments' model files and
 * branches); composition.ts passes its service.
 */
export interface SyncTarget {
  /** The deployment, if the principal may reach it (403 or 404 otherwise). */
  deployment(p: Principal, deploymentId: number): Promise<unknown>;
  /** Writes files onto a development branch in `trx`; answers the branch's model errors afterwards. */
  writeGenerated(
    trx: Db,
    p: Principal,
    deploymentId: number,
    branch: string,
    files: readonly { path: string; content: string }[],
  ): Promise<{ fileName: string | null; line: number | null; message: string }[]>;
}
