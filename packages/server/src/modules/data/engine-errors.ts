import { StatementRejectedError, WarehouseUnavailableError } from '../../datasources/driver.ts';
import { DataApiError, userError, warehouseUnavailable } from './errors.ts';

/**
 * A warehouse out of reach (the driver says so) is 503 `warehouse_unavailable`; a statement the
 * engine refused (a driver that tells them apart says so) is the query's 400; other errors pass.
 */
export function driverError(error: unknown): unknown {
  if (error instanceof StatementRejectedError) return userError(`Query failed: ${error.engineMessage}`);
  return error instanceof WarehouseUnavailableError ? warehouseUnavailable(error) : error;
}

/**
 * The engine refusing validated outer SQL-API text (a type mismatch, division by zero, a column
 * that is not there) is the caller's problem: 400 with the engine's words. Anything else stays a
 * 5xx, whose details never reach the caller.
 */
export function engineError(error: unknown): unknown {
  if (error instanceof DataApiError) return error;
  if (error instanceof WarehouseUnavailableError || error instanceof StatementRejectedError)
    return driverError(error);
  const e = error as { code?: unknown; message?: unknown };
  const message = typeof e?.message === 'string' ? e.message : '';
  const pgUserError = typeof e?.code === 'string' && /^(22|42)/.test(e.code);
  const duckUserError =
    /^(Binder|Conversion|Parser|Catalog|Invalid Input|Out of Range|Not implemented|Invalid Error|Constraint) Error/.test(
      message,
    );
  return pgUserError || duckUserError ? userError(`Query failed: ${message.split('\n')[0]}`) : error;
}
