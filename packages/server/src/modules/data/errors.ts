import type { UnavailableReason } from '../../datasources/driver.ts';
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
/**
 * Every request waiting for an execution went away before it ended (their clients closed the
 * connection): it is cancelled on the engine, and a replica waiting for it through Redis takes it
 * over (shared-cache.ts), since its own waiters still want the rows.
 */
export class QueryAbandonedError extends Error {
  override readonly name = 'QueryAbandonedError';
  constructor() {
    super('Every request waiting for the query went away');
  }
}

export const queryTimeout = (message: string) => new DataApiError('query_timeout', message);
/** What the 503 says per reason (datasources/driver.ts `UnavailableReason`): what to do, no internals. */
const unavailableWords: Record<UnavailableReason, string> = {
  unreachable:
    "The deployment's data warehouse cannot be reached; check its data source settings or try again later",
  busy: "The deployment's data warehouse is out of connections or resources right now; try again in a moment",
  shutting_down: "The deployment's data warehouse is shutting down or starting up; try again in a moment",
  conflict:
    "The deployment's data warehouse could not run the query for a lock another transaction holds (a lock timeout or deadlock); try again",
  cancelled:
    "The deployment's data warehouse cancelled the query itself (its statement timeout or an operator); try a smaller query, or ask its administrator",
  permission:
    "The deployment's data warehouse refused to let its data source's user read what the query reads",
  setup: "The deployment's data warehouse is missing something the query needs",
  failed:
    "The deployment's data warehouse failed while running the query (an internal or storage error); try again later, or ask its administrator",
};

/**
 * The deployment's warehouse cannot answer (datasources/driver.ts): 503, in words for the reason
 * that name no host, user or file, with the driver's `detail` where it has one (a permission
 * error's table); the cause goes to the log only (errors/reply.ts logs 5xx with it).
 */
export const warehouseUnavailable = (
  cause: unknown,
  reason: UnavailableReason = 'unreachable',
  detail?: string,
) =>
  Object.assign(
    new DataApiError(
      'warehouse_unavailable',
      detail ? `${unavailableWords[reason]}: ${detail}` : unavailableWords[reason],
    ),
    { cause },
  );
