import type { CodeOn } from '../../errors/catalogue.ts';
import { DomainError } from '../../errors/domain-errors.ts';

/**
 * A data-API error: one of the domain errors (errors/domain-errors.ts) with a data-API code. The
 * data routes render it in Cube's shape (errors/cube-error.ts); read in-process (dashboard
 * widgets) it is problem+json like any other.
 */
export class DataApiError extends DomainError {
  // biome-ignore lint/complexity/noUselessConstructor: narrows the code to the data API's
  constructor(code: CodeOn<'data'>, message: string) {
    super(code, message);
  }
}

/** Missing, malformed, wrongly signed or expired token: Cube answers 403 `{error}` for all. */
export const forbidden = (message: string) => new DataApiError('data_access_denied', message);
export const notFound = (message: string) => new DataApiError('data_not_found', message);
/** A query the caller got wrong: 400 `{type: "UserError", error}`. */
export const userError = (message: string) => new DataApiError('invalid_query', message);
/** The deployment's data model does not compile: Cube answers it as a UserError too. */
export const modelCompileError = (message: string) => new DataApiError('invalid_data_model', message);
export const queryTimeout = (message: string) => new DataApiError('query_timeout', message);
/**
 * The deployment's warehouse cannot be reached or opened (datasources/driver.ts): 503, in words
 * that name no host or file; the cause goes to the log only (errors/reply.ts logs 5xx with it).
 */
export const warehouseUnavailable = (cause: unknown) =>
  Object.assign(
    new DataApiError(
      'warehouse_unavailable',
      "The deployment's data warehouse cannot be reached; check its data source settings or try again later",
    ),
    { cause },
  );
