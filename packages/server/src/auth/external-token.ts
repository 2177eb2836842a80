import type { AccountRole } from '../db/schema.ts';

/** The user an external provider's access token stands for, as authentication reads it. */
export interface ExternalGrant {
  userId: number;
  role: AccountRole;
}

/**
 * The OIDC module's side of the authentication hook (modules/oidc/external implements it), so
 * that auth/ imports nothing of the modules: spec 5 accepts an OAuth access token as
 * `Authorization: Bearer`, the same way as an API key.
 */
export interface ExternalTokenVerifier {
  /** Whether a bearer token that is no API key is the provider's to judge (else: embed tokens, or malformed). */
  claims(token: string): boolean;
  /** The token's user in this tenant (matched or created); 401 for an expired, foreign or unknown token. */
  verify(tenantId: number, token: string): Promise<ExternalGrant>;
}

/** The bearer token of an Authorization header when it is not an API key (`tsk_...`); else null. */
export function externalTokenIn(header: string | undefined): string | null {
  const match = /^\s*bearer\s+(\S{1,16384})\s*$/i.exec(header ?? '');
  return match && !match[1].startsWith('tsk_') ? match[1] : null;
}
