import { type Client, createClient } from '@tessera/client';

/** The header a cookie-authenticated write carries (DESIGN.md "Web app and sessions"). */
export const csrfHeaderName = 'x-csrf-token';

export interface AppClientOptions {
  /** The session's CSRF token, sent on every call (the server checks it on writes); null before sign-in. */
  csrfToken: string | null;
  /** Called when any call but the session's own answers 401: the session has ended. */
  onUnauthorized?: () => void;
}

/** Whether a URL is one of the session routes, whose 401 is an answer rather than an ended session. */
function isSessionCall(url: string): boolean {
  return new URL(url).pathname === '/api/v1/session';
}

/**
 * The web app's client: this origin only (no request leaves it), the session cookie
 * (`credentials: 'include'`) instead of a token, and the CSRF token as a header. A 401 from any
 * other route tells the session provider that the session is over.
 */
export function createAppClient({ csrfToken, onUnauthorized }: AppClientOptions): Client {
  return createClient({
    baseUrl: window.location.origin,
    credentials: 'include',
    headers: csrfToken ? { [csrfHeaderName]: csrfToken } : {},
    fetch: async (request) => {
      const response = await globalThis.fetch(request);
      if (response.status === 401 && !isSessionCall(request.url)) onUnauthorized?.();
      return response;
    },
  });
}
