import type { EngineFault, UnavailableReason } from './driver.ts';

/** An error answer of the BigQuery REST API (ErrorProto in `error.errors`), or a failed job's `errorResult`. */
export class BigQueryApiError extends Error {
  override readonly name = 'BigQueryApiError';
  constructor(
    /** The HTTP status (0 for a job's errorResult inside a 200). */
    readonly status: number,
    /** The first error's `reason` (invalidQuery, notFound, accessDenied, rateLimitExceeded, ...). */
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reasons the REST API retries may cure: BigQuery's "Troubleshoot errors" page advises an
 * exponential backoff for these, and for 5xx answers without a reason.
 */
export const retryableReasons = new Set(['rateLimitExceeded', 'backendError', 'internalError']);

/** Engine-side reasons by what they mean to the data API's 503. */
const engineReasons: Record<string, UnavailableReason> = {
  accessDenied: 'permission',
  billingNotEnabled: 'setup',
  billingTierLimitExceeded: 'busy',
  quotaExceeded: 'busy',
  rateLimitExceeded: 'busy',
  resourcesExceeded: 'busy',
  resourceInUse: 'busy',
  backendError: 'busy',
  internalError: 'failed',
  jobBackendError: 'failed',
  jobInternalError: 'failed',
  tableUnavailable: 'failed',
  notImplemented: 'failed',
  stopped: 'cancelled',
  timeout: 'cancelled',
  blocked: 'permission',
};

/** A message's lines as one (BigQuery's carry a location `at [3:7]`, and name no credential). */
const oneLine = (message: string) =>
  message
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ');

/**
 * BigQuery's errors by `reason` (https://cloud.google.com/bigquery/docs/error-messages): the
 * query's fault (400) for invalidQuery and invalid (syntax, an unknown column or function, a type
 * mismatch, division by zero), notFound (a table the model names that is not in the dataset),
 * duplicate, responseTooLarge and bytesBilledLimitExceeded (the query reads more than the data
 * source's maximumBytesBilled allows: narrow it or raise the limit); the engine's (503) for the
 * rest, sorted above (a permission's message is left to the log: it may name the service
 * account); an HTTP 401 is the key refused; a network error unreachable.
 */
export function bigqueryFault(error: unknown): EngineFault {
  if (error instanceof BigQueryApiError) {
    if (error.status === 401) return { fault: 'engine', reason: 'unreachable' };
    if (
      [
        'invalidQuery',
        'invalid',
        'notFound',
        'duplicate',
        'responseTooLarge',
        'bytesBilledLimitExceeded',
      ].includes(error.reason)
    )
      return { fault: 'statement', message: oneLine(error.message) };
    const reason = engineReasons[error.reason];
    if (reason) return { fault: 'engine', reason };
    if (error.status === 429 || error.status === 503) return { fault: 'engine', reason: 'busy' };
    if (error.status >= 500) return { fault: 'engine', reason: 'failed' };
    return { fault: 'engine', reason: 'unreachable' };
  }
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return { fault: 'engine', reason: 'unreachable' };
  return null;
}
