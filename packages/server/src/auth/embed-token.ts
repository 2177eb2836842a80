import type { EmbedGrant } from './principal.ts';

/**
 * The embed module's side of the authentication hook (modules/embed/tokens.ts implements it), so
 * that auth/ imports nothing of the modules: checks an embed token's signature, expiry and session.
 */
export interface EmbedTokenVerifier {
  /** The grant of a valid embed token of this tenant; throws 401 for a tampered, expired or revoked one. */
  verify(tenantId: number, token: string): Promise<EmbedGrant>;
}

/** A compact JWS (RFC 7515 section 7.1): three base64url parts. API keys (`tsk_...`) have no dot. */
const compactJws = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The embed token of `Authorization: Bearer <token>`, told from an API key by its shape; else null. */
export function embedTokenIn(header: string | undefined): string | null {
  const match = /^\s*bearer\s+(\S{1,16384})\s*$/i.exec(header ?? '');
  return match && compactJws.test(match[1]) ? match[1] : null;
}
