import { StatementRejectedError, WarehouseUnavailableError } from '../../datasources/driver.ts';
import { DataApiError, userError, warehouseUnavailable } from './errors.ts';

/**
 * An engine error as the data API answers it (issue 24 item 3): a statement the engine refused
 * (the drivers sort each engine's errors, datasources/engine-faults.ts) is the query's 400 with
 * the engine's first line; the engine out of reach, busy, shutting down or failing is 503
 * `warehouse_unavailable` in words for why. Anything else passes on, to be a 500 whose details
 * only the log sees.
 */
export function driverError(error: unknown): unknown {
  if (error instanceof DataApiError) return error;
  if (error instanceof StatementRejectedError) return userError(`Query failed: ${error.engineMessage}`);
  if (error instanceof WarehouseUnavailableError)
    return warehouseUnavailable(error, error.reason, error.detail);
  return error;
}

/** The SQL API's outer SQL refused by the engine is the caller's problem in the same way. */
export const engineError = driverError;
