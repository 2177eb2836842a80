import type { DeploymentRow } from '../../db/schema.ts';

/** What the model cache reads of a deployment's model files (modules/data-model owns them). */
export interface ModelFiles {
  files(deploymentId: number, branch: string): Promise<{ path: string; content: string; updated_at: Date }[]>;
}

/**
 * Deployments the server itself provides (issue 25 item 5: each tenant's Usage Analytics), served
 * by the data API at one public id; modules/usage-analytics implements it.
 */
export interface BuiltInDeployments {
  /** The tenant's built-in deployment, or undefined when it has none yet. */
  deployment(tenantId: number): Promise<DeploymentRow | undefined>;
}
