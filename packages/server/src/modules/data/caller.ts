import type { SecurityContext } from '@tessera/semantic';
import type { DeploymentRow } from '../../db/schema.ts';

/**
 * Who asks and against what: the deployment, the security context that access policies read, and
 * the model branch (decided by branch.ts, never by the request). Resolved from a data-API token by
 * DataService.caller, or built by an in-process entry point (dashboard widgets) for its viewer.
 */
export interface DataCaller {
  deployment: DeploymentRow;
  securityContext: SecurityContext;
  branch: string;
}
