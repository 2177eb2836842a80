import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  AuthenticationError,
  PermissionDeniedError,
  RateLimitError,
} from 'openai';

/**
 * What went wrong with the model endpoint, in words fit for the chat stream's final error line
 * (DESIGN.md "Errors": `{"error": ...}`). Built from the status alone, so that no credential can
 * leak; a 4xx adds the endpoint's own message (it names a bad model or parameter), with the key
 * taken out in case the endpoint echoes it.
 */
export function describeModelError(error: unknown, apiKey: string): string {
  if (error instanceof APIConnectionTimeoutError)
    return 'The language model endpoint did not answer in time.';
  if (error instanceof APIConnectionError) return 'Could not reach the language model endpoint.';
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError)
    return `The language model endpoint refused the agent's credentials (HTTP ${error.status}).`;
  if (error instanceof RateLimitError)
    return 'The language model endpoint is limiting requests (HTTP 429); try again later.';
  if (error instanceof APIError && typeof error.status === 'number') {
    if (error.status >= 500) return `The language model endpoint failed (HTTP ${error.status}).`;
    const detail = endpointMessage(error, apiKey);
    return `The language model endpoint rejected the request (HTTP ${error.status})${detail ? `: ${detail}` : '.'}`;
  }
  return 'The language model endpoint sent an answer that could not be read.';
}

function endpointMessage(error: APIError, apiKey: string): string {
  const body = error.error as { message?: unknown } | undefined;
  const message = typeof body?.message === 'string' ? body.message : '';
  const redacted = apiKey ? message.split(apiKey).join('[key]') : message;
  return redacted.replace(/\s+/g, ' ').trim().slice(0, 300);
}
