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
  /**
   * The account user the query runs for, when there is one (dashboard widgets and reports of a
   * signed-in user or their key). A data source set to query with each viewer's own OAuth token
   * connects as them (run.ts); absent (data-API tokens, whose claims anyone holding the
   * deployment's API secret may write, and embed users) such a data source refuses.
   */
  accountUserId?: number;
  /**
   * Aborts when the caller has gone (its HTTP client closed the connection, client-gone.ts):
   * a query it waits for is cancelled on the engine once no other caller waits (executor.ts).
   * Absent: the caller waits until the query ends (a render, a chat tool).
   */
  signal?: AbortSignal;
}
