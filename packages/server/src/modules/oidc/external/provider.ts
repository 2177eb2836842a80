import { createRemoteJWKSet, decodeJwt, errors as joseErrors, jwtVerify } from 'jose';
import * as client from 'openid-client';
import type { OidcSignInConfig } from '../../../config/config.ts';
import { UnauthorizedError } from '../../../errors/domain-errors.ts';
import { isLoopback } from '../../oauth/provider-client.ts';

/** What Tessera reads of a provider's user: from an ID token, a JWT access token or userinfo. */
export type ProviderClaims = Record<string, unknown> & { sub: string };

/** A compact JWS: three base64url parts. */
const compactJws = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * The external OpenID provider, through openid-client: its discovery document read once (and
 * again after a failure), and the checks of its access tokens (spec 5): a JWT access token
 * (RFC 9068) is verified here against the provider's JWKS, issuer, audience and expiry; an opaque
 * one is checked by the provider itself at its userinfo endpoint.
 */
export class ExternalProvider {
  private discovered: Promise<client.Configuration> | undefined;
  private jwks: ReturnType<typeof createRemoteJWKSet> | undefined;

  constructor(readonly settings: OidcSignInConfig) {}

  configuration(): Promise<client.Configuration> {
    if (!this.discovered) {
      const insecure = isLoopback(this.settings.issuer);
      this.discovered = client
        .discovery(
          new URL(this.settings.issuer),
          this.settings.clientId,
          undefined,
          this.settings.clientSecret ? client.ClientSecretBasic(this.settings.clientSecret) : client.None(),
          insecure ? { execute: [client.allowInsecureRequests] } : undefined,
        )
        .catch((error) => {
          this.discovered = undefined;
          throw error;
        });
    }
    return this.discovered;
  }

  /** Whether a bearer token is the provider's: a JWT it issued, or any opaque token. */
  claims(token: string): boolean {
    if (!compactJws.test(token)) return true;
    try {
      return decodeJwt(token).iss === this.settings.issuer;
    } catch {
      return false;
    }
  }

  /** The claims of a valid access token; 401 for an expired, revoked, foreign or unreadable one. */
  async verifyAccessToken(token: string): Promise<ProviderClaims> {
    const configuration = await this.configuration();
    if (compactJws.test(token)) return this.verifyJwt(configuration, token);
    try {
      return (await client.fetchUserInfo(configuration, token, client.skipSubjectCheck)) as ProviderClaims;
    } catch (error) {
      if (error instanceof client.WWWAuthenticateChallengeError || error instanceof client.ResponseBodyError)
        throw new UnauthorizedError(
          'credential_invalid',
          'The access token is not valid at the identity provider',
        );
      throw error;
    }
  }

  private async verifyJwt(configuration: client.Configuration, token: string): Promise<ProviderClaims> {
    const jwksUri = configuration.serverMetadata().jwks_uri;
    if (!jwksUri)
      throw new UnauthorizedError('credential_invalid', 'The identity provider publishes no keys');
    this.jwks ??= createRemoteJWKSet(new URL(jwksUri));
    try {
      const { payload } = await jwtVerify(token, this.jwks, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
      });
      if (typeof payload.sub !== 'string')
        throw new UnauthorizedError('credential_invalid', 'The access token has no subject');
      return payload as ProviderClaims;
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired)
        throw new UnauthorizedError('credential_expired', 'The access token has expired');
      if (error instanceof joseErrors.JOSEError)
        throw new UnauthorizedError('credential_invalid', 'The access token is not valid');
      throw error;
    }
  }
}
