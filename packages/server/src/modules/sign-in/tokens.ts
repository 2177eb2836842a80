import { createHmac, timingSafeEqual } from 'node:crypto';
import { randomToken, sha256 } from '../../crypto/secrets.ts';

/** A session id: 32 random bytes in base64url; only its SHA-256 is stored (DESIGN.md "Persistence"). */
const sessionIdPattern = /^[A-Za-z0-9_-]{43}$/;

export function newSessionId(): { id: string; hash: string } {
  const id = randomToken(32);
  return { id, hash: sha256(id) };
}

export function isWellFormedSessionId(value: string): boolean {
  return sessionIdPattern.test(value);
}

/**
 * CSRF tokens are an HMAC of a random salt keyed by the session id (OWASP CSRF cheat sheet,
 * "signed double-submit" with the session as the secret): only code that read a token from our
 * own responses can send one, each answer carries a fresh token (no two responses repeat it), any
 * token issued to the session stays valid for its life, and nothing more is stored. The id
 * itself never leaves the HttpOnly cookie.
 */
export function csrfTokenFor(sessionId: string): string {
  const salt = randomToken(16);
  return `${salt}.${mac(sessionId, salt)}`;
}

function mac(sessionId: string, salt: string): string {
  return createHmac('sha256', sessionId).update(`tessera-csrf:${salt}`).digest('base64url');
}

export function csrfTokenMatches(sessionId: string, token: unknown): boolean {
  if (typeof token !== 'string' || token.length > 128) return false;
  const [salt, given, ...rest] = token.split('.');
  if (!salt || !given || rest.length > 0) return false;
  const expected = Buffer.from(mac(sessionId, salt));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
