import { isApiError } from '@tessera/client';

interface Problem {
  detail?: unknown;
  title?: unknown;
  code?: unknown;
  errors?: { detail?: unknown; pointer?: unknown; field?: unknown }[];
}

/** A sentence for a failed call, from the server's problem+json (RFC 9457) when it sent one. */
export function describeError(error: unknown): string {
  if (isApiError(error)) {
    const problem = (typeof error.body === 'object' && error.body !== null ? error.body : {}) as Problem;
    if (error.status === 403) return 'You do not have access to this.';
    if (error.status === 404) return 'This was not found. It may have been moved or deleted.';
    if (error.status === 429) return 'Too many requests. Wait a moment and try again.';
    if (error.status >= 500) return 'The server could not answer. Try again in a moment.';
    if (typeof problem.detail === 'string' && problem.detail !== '') return problem.detail;
    if (typeof problem.title === 'string') return problem.title;
    return `The server answered ${error.status}.`;
  }
  if (error instanceof TypeError) return 'The server could not be reached. Check your connection.';
  return error instanceof Error ? error.message : 'Something went wrong.';
}

/** The HTTP status of a failed call, when it was an answer of the server. */
export function errorStatus(error: unknown): number | undefined {
  return isApiError(error) ? error.status : undefined;
}
