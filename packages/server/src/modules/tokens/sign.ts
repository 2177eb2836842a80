import { SignJWT } from 'jose';
import { ValidationError } from '../../errors/domain-errors.ts';
import { TESSERA_CLAIMS } from '../data/branch.ts';

/** Claims the server sets itself (registered ones, and Tessera's own); a caller's context may not. */
export const reservedClaims = ['exp', 'iat', 'nbf', TESSERA_CLAIMS];

/** 400 naming each reserved claim a caller's security context sets (`field` is where the context sits). */
export function refuseReservedClaims(context: Record<string, unknown>, field: string): void {
  const clash = reservedClaims.filter((k) => k in context);
  if (clash.length > 0)
    throw new ValidationError(
      'The security context may not set registered claims',
      clash.map((k) => ({ field: `${field}/${k}`, message: 'is set by the server' })),
    );
}

/**
 * A data-API token (DESIGN.md "Semantic layer and data API"): an HS256 JWT signed with the
 * deployment's API secret whose payload is the security context; `issuedAt`, when given, lets the
 * caller know the exact `exp` it wrote.
 */
export function signDataToken(
  secret: string,
  claims: Record<string, unknown>,
  lifetimeSeconds: number,
  issuedAt = Math.floor(Date.now() / 1000),
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + lifetimeSeconds)
    .sign(new TextEncoder().encode(secret));
}
