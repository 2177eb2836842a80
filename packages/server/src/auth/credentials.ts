import { randomToken, sha256 } from '../crypto/secrets.ts';

/**
 * API key format: `tsk_` + 43 base64url characters (32 random bytes). The prefix lets secret
 * scanners find leaked keys; only the SHA-256 hash is stored.
 */
const keyPattern = /^tsk_[A-Za-z0-9_-]{43}$/;

export function generateApiKey(): { key: string; hash: string; prefix: string } {
  const key = `tsk_${randomToken(32)}`;
  return { key, hash: sha256(key), prefix: key.slice(0, 12) };
}

export function isWellFormedKey(key: string): boolean {
  return keyPattern.test(key);
}

export type ParsedAuthorization = { ok: true; key: string } | { ok: false; reason: 'missing' | 'malformed' };

/** Parses `Authorization: Bearer <key>` (spec section 5); `Api-Key <key>` where the family allows it. */
export function parseAuthorization(
  header: string | undefined,
  allowApiKeyScheme: boolean,
): ParsedAuthorization {
  if (header === undefined || header.trim() === '') return { ok: false, reason: 'missing' };
  const match = /^(\S+)\s+(\S+)$/.exec(header.trim());
  if (!match) return { ok: false, reason: 'malformed' };
  const scheme = match[1].toLowerCase();
  if (scheme !== 'bearer' && !(allowApiKeyScheme && scheme === 'api-key'))
    return { ok: false, reason: 'malformed' };
  if (!isWellFormedKey(match[2])) return { ok: false, reason: 'malformed' };
  return { ok: true, key: match[2] };
}
