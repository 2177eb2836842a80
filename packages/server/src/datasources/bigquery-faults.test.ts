import { describe, expect, it } from 'vitest';
import { BigQueryApiError, bigqueryFault } from './bigquery-faults.ts';

/** BigQuery's error reasons ("Troubleshoot errors", error-messages) as the data API answers them. */
describe('BigQuery errors by reason', () => {
  it.each([
    [
      400,
      'invalidQuery',
      'Syntax error: Unexpected keyword FROM at [1:8]',
      { fault: 'statement', message: 'Syntax error: Unexpected keyword FROM at [1:8]' },
    ],
    [
      404,
      'notFound',
      'Not found: Table p:d.t was not found in location EU',
      { fault: 'statement', message: 'Not found: Table p:d.t was not found in location EU' },
    ],
    [
      400,
      'bytesBilledLimitExceeded',
      'Query exceeded limit for bytes billed: 1000.',
      { fault: 'statement', message: 'Query exceeded limit for bytes billed: 1000.' },
    ],
    [
      400,
      'resourcesExceeded',
      'Resources exceeded during query execution',
      { fault: 'engine', reason: 'busy' },
    ],
    [403, 'rateLimitExceeded', 'Exceeded rate limits', { fault: 'engine', reason: 'busy' }],
    [503, 'backendError', 'Error encountered during execution.', { fault: 'engine', reason: 'busy' }],
    [
      403,
      'accessDenied',
      'Access Denied: Project p: User does not have bigquery.jobs.create permission',
      { fault: 'engine', reason: 'permission' },
    ],
    [400, 'stopped', 'Job execution was cancelled', { fault: 'engine', reason: 'cancelled' }],
    [500, 'internalError', 'An internal error occurred', { fault: 'engine', reason: 'failed' }],
    [
      401,
      'authError',
      'Request had invalid authentication credentials.',
      { fault: 'engine', reason: 'unreachable' },
    ],
  ])('HTTP %i %s', (status, reason, message, expected) => {
    expect(bigqueryFault(new BigQueryApiError(status, reason, message))).toEqual(expected);
  });

  it('a message over several lines is one line; a network error is the engine unreachable', () => {
    expect(bigqueryFault(new BigQueryApiError(400, 'invalidQuery', 'Syntax error:\n  at [2:3]'))).toEqual({
      fault: 'statement',
      message: 'Syntax error: at [2:3]',
    });
    expect(bigqueryFault(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).toEqual({
      fault: 'engine',
      reason: 'unreachable',
    });
    expect(bigqueryFault(new Error('something else'))).toBeNull();
  });
});
