import { errors, jwtVerify, SignJWT } from 'jose';
import type { EmbedTokenVerifier } from '../../auth/embed-token.ts';
import type { EmbedGrant } from '../../auth/principal.ts';
import { randomToken, type SecretBox } from '../../crypto/secrets.ts';
import { ForbiddenError, UnauthorizedError } from '../../errors/domain-errors.ts';
import { type EmbedClaim, embedAudience, embedIssuer, grantOf } from './claims.ts';
import type { EmbedSessionsRepository } from './sessions-repository.ts';
import type { EmbedSettingsRepository } from './settings-repository.ts';

/**
 * Embed tokens: HS256 JWTs (DESIGN.md "Chosen libraries": jose) signed with a secret of the
 * tenant, generated on first use and sealed at rest with the SecretBox. Every use checks the
 * signature, the expiry and then the session row by primary key: revoking the session, or the
 * tenant turning embedding off, refuses its token from the next request on, on every replica.
 */
export class EmbedTokens implements EmbedTokenVerifier {
  /** Secrets never change once created, so each replica keeps the opened ones. */
  private readonly keys = new Map<number, Promise<Uint8Array | null>>();

  constructor(
    private readonly deps: {
      settings: EmbedSettingsRepository;
      sessions: EmbedSessionsRepository;
      secrets: SecretBox;
    },
  ) {}

  /**
   * Both times come from the caller's one reading of the clock (the store's, where the session
   * was redeemed): read again here, `iat` could fall a second later and the token would live a
   * second less than its lifetime.
   */
  async sign(
    claim: EmbedClaim,
    { issuedAt, expiresAt }: { issuedAt: Date; expiresAt: Date },
  ): Promise<string> {
    const key = await this.key(claim.tenantId, true);
    return new SignJWT({ embed: claim })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(embedIssuer)
      .setAudience(embedAudience)
      .setSubject(claim.externalId)
      .setIssuedAt(Math.floor(issuedAt.getTime() / 1000))
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(key as Uint8Array);
  }

  async verify(tenantId: number, token: string): Promise<EmbedGrant> {
    const key = await this.key(tenantId, false);
    if (!key) throw invalid();
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, key, {
        algorithms: ['HS256'],
        issuer: embedIssuer,
        audience: embedAudience,
      }));
    } catch (error) {
      if (error instanceof errors.JWTExpired)
        throw new UnauthorizedError('credential_expired', 'The embed token has expired');
      if (error instanceof errors.JOSEError) throw invalid();
      throw error;
    }
    const grant = grantOf(payload);
    if (!grant || grant.tenantId !== tenantId) throw invalid();
    const state = await this.deps.sessions.tokenState(grant.sessionId);
    if (!state) throw invalid();
    if (state.revoked)
      throw new UnauthorizedError('credential_revoked', 'The embed session has been revoked');
    if (!state.embed_enabled)
      throw new ForbiddenError('Embedding is not enabled for this account', 'embedding_disabled');
    const { tenantId: _tenant, ...rest } = grant;
    return rest;
  }

  private async key(tenantId: number, create: boolean): Promise<Uint8Array | null> {
    const entry = this.keys.get(tenantId);
    if (entry) {
      const key = await entry.catch(() => null);
      if (key || !create) return key;
    }
    return this.load(tenantId, create);
  }

  private async load(tenantId: number, create: boolean): Promise<Uint8Array | null> {
    const loading = (async () => {
      const sealed = create
        ? await this.deps.settings.ensureTokenSecret(tenantId, this.deps.secrets.seal(randomToken(32)))
        : await this.deps.settings.tokenSecret(tenantId);
      return sealed === null ? null : new TextEncoder().encode(this.deps.secrets.open(sealed));
    })();
    this.keys.set(tenantId, loading);
    try {
      const key = await loading;
      // Only a found secret is kept: "none yet" must not hide the one the first token creates.
      if (key === null && this.keys.get(tenantId) === loading) this.keys.delete(tenantId);
      return key;
    } catch (error) {
      if (this.keys.get(tenantId) === loading) this.keys.delete(tenantId);
      throw error;
    }
  }
}

function invalid() {
  return new UnauthorizedError('credential_invalid', 'The embed token is not valid');
}
