import type { SecurityContext } from '@tessera/semantic';
import type { DeploymentRow } from '../../db/schema.ts';

/**
 * Who asks and against what: resolved once per data-API request (DataService.caller). Its own
 * file, so that the SQL API (cubesql.ts) and the service that calls it need not import each other.
 */
export interface DataCaller {
  deployment: DeploymentRow;
  securityContext: SecurityContext;
  branch: string;
}
