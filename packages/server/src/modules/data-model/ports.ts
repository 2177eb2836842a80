import type { Db } from '../../db/database.ts';

/** What the model directory plugin reads of deployments (modules/deployments owns them). */
export interface DemoDeployment {
  demoDeploymentId(db?: Db): Promise<number | null>;
}
