import type { SecurityContext } from '@tessera/semantic';
import { errors, jwtVerify } from 'jose';
import { type BranchGrant, splitClaims } from './branch.ts';
import { forbidden } from './errors.ts';

/**
 * Data-API tokens (DESIGN.md "Semantic layer and data API"): a JWT signed HS256 with the
 * deployment's API secret, sent bare in `Authorization` (spec section 5, "no prefix"); a `Bearer `
 * prefix is tolerated, as Cube does. The payload is the security context, except Tessera's own
 * claims (branch.ts), which come back as the grant.
 */
export function tokenFrom(header: string | undefined): string {
  if (header === undefined || header.trim() === '') throw forbidden("Authorization header isn't set");
  return header.trim().replace(/^Bearer\s+/i, '');
}

export async function verifyToken(
  token: string,
  secret: string,
): Promise<{ securityContext: SecurityContext; grant: BranchGrant }> {
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, new TextEncoder().encode(secret), { algorithms: ['HS256'] }));
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw forbidden('Token expired');
    if (error instanceof errors.JOSEError) throw forbidden('Invalid token');
    throw error;
  }
  const { securityContext, grant } = splitClaims(payload);
  return { securityContext: securityContext as SecurityContext, grant };
}

/** Registered claims vary per token, not per reader: left out of cache keys. */
export function contextKey(ctx: SecurityContext): string {
  const { iat: _iat, exp: _exp, nbf: _nbf, jti: _jti, ...rest } = ctx as Record<string, unknown>;
  return stableStringify(rest);
}

function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableStringify((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}
