import type { AccountRole } from '../db/schema.ts';

/** The cookie a browser signs in with (DESIGN.md "Web app and sessions"). */
export const sessionCookieName = 'tessera_session';

/** The request header that carries the CSRF token on writes authenticated by the cookie. */
export const csrfHeaderName = 'x-csrf-token';

/** Methods that change state: a cookie-authenticated request with one of them needs the CSRF token. */
export const stateChangingMethods: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A live browser session, as the authentication hook reads it. */
export interface SessionGrant {
  /** The session row's id. */
  id: number;
  tenantId: number;
  userId: number;
  /** The user's account-wide role, their assigned roles included (auth/roles.ts). */
  role: AccountRole;
  deploymentRoles?: Record<string, AccountRole>;
}

/**
 * The sign-in module's side of the authentication hook (modules/sign-in/sessions.ts implements
 * it), so that auth/ imports nothing of the modules.
 */
export interface SessionVerifier {
  /**
   * The live session a cookie value names in this tenant; throws 401 for a malformed, unknown,
   * revoked or expired (idle or absolute) one, or when its user is deactivated.
   */
  verify(tenantId: number, sessionId: string): Promise<SessionGrant>;
  /** Whether `token` is a CSRF token issued for this session (compared in constant time). */
  csrfTokenMatches(sessionId: string, token: unknown): boolean;
  /** Records activity for the idle limit, writing at most about once a minute (the promise when it writes). */
  touch(grant: SessionGrant): Promise<void> | undefined;
}
