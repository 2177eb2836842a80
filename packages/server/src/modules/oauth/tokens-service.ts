import * as client from 'openid-client';
import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import { type SecretBox, sha256 } from '../../crypto/secrets.ts';
import type { OAuthIntegrationRow, UserOAuthTokenRow } from '../../db/schema.ts';
import { DomainError, NotFoundError } from '../../errors/domain-errors.ts';
import type { OAuthIntegrationsService } from './integrations-service.ts';
import { providerConfiguration, providerFailure } from './provider-client.ts';
import type { OAuthRepository, TokenValues } from './repository.ts';
import type { InitiateAnswer, RevokeAnswer, UserOAuthToken } from './schemas.ts';

export type UserTokenView = Static<typeof UserOAuthToken>;

/** How long a user has to finish an authorization at the provider. */
const flowLifetimeMs = 10 * 60_000;
/** A token this close to its expiry is refreshed before it is used. */
const refreshMarginMs = 60_000;

export interface Logger {
  warn(details: object, message: string): void;
}

/** What the callback did: the browser goes back to the web app with it. */
export type CallbackOutcome = { connected: number } | { error: string };

function statusOf(row: UserOAuthTokenRow, now = Date.now()): UserTokenView['status'] {
  if (row.status === 'error') return 'error';
  const expired = row.access_token_expires_at !== null && row.access_token_expires_at.getTime() <= now;
  const refreshable =
    row.refresh_token_enc !== null &&
    (row.refresh_token_expires_at === null || row.refresh_token_expires_at.getTime() > now);
  return expired && !refreshable ? 'expired' : 'active';
}

export function tokenView(row: UserOAuthTokenRow): UserTokenView {
  return {
    id: row.id,
    userId: row.user_id,
    integrationId: row.integration_id,
    status: statusOf(row),
    accessTokenExpiresAt: row.access_token_expires_at?.toISOString() ?? null,
    refreshTokenExpiresAt: row.refresh_token_expires_at?.toISOString() ?? null,
    lastError: row.last_error,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * Users' OAuth connections (reference group User OAuth Tokens, spec 4.1): the authorization-code
 * flow with PKCE (RFC 7636) and a one-time `state` (RFC 6749 section 10.12), the tokens sealed at
 * rest, refreshed before they expire (RFC 6749 section 6), and revoked at the provider (RFC 7009)
 * when a user disconnects. A token is never shown: reads show the connection's state only.
 */
export class UserOAuthTokensService {
  /** One refresh per connection at a time in this process: a rotated refresh token is good once. */
  private readonly refreshing = new Map<number, Promise<string>>();

  constructor(
    private readonly deps: {
      repository: OAuthRepository;
      integrations: OAuthIntegrationsService;
      secrets: SecretBox;
    },
  ) {}

  async list(principal: Principal): Promise<UserTokenView[]> {
    return (await this.deps.repository.listTokens(principal.tenantId, principal.userId)).map(tokenView);
  }

  async get(principal: Principal, integrationId: number): Promise<UserTokenView> {
    return tokenView(await this.requireToken(principal, integrationId));
  }

  /** Starts a connection: the provider's authorization URL, with a fresh state and PKCE challenge. */
  async initiate(principal: Principal, integrationId: number): Promise<Static<typeof InitiateAnswer>> {
    const integration = await this.deps.integrations.require(principal.tenantId, integrationId);
    const state = client.randomState();
    const verifier = client.randomPKCECodeVerifier();
    const expiresAt = new Date(Date.now() + flowLifetimeMs);
    await this.deps.repository.insertFlow({
      stateHash: sha256(state),
      userId: principal.userId,
      integrationId,
      verifierEnc: this.deps.secrets.seal(verifier),
      expiresAt,
    });
    const url = client.buildAuthorizationUrl(this.configuration(integration), {
      redirect_uri: integration.redirect_uri,
      ...(integration.scopes?.length ? { scope: integration.scopes.join(' ') } : {}),
      state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    return { authorizationUrl: url.href, expiresAt: expiresAt.toISOString() };
  }

  /**
   * The provider's redirect back: the state names the flow (once), the code is exchanged with
   * the flow's PKCE verifier, and the tokens are stored sealed. Failures are answered as a short
   * reason for the web app, never with the provider's tokens.
   */
  async complete(query: Record<string, string | undefined>, log: Logger): Promise<CallbackOutcome> {
    if (!query.state) return { error: 'missing_state' };
    const flow = await this.deps.repository.takeFlow(sha256(query.state));
    if (!flow || flow.expires_at.getTime() <= Date.now()) return { error: 'unknown_or_expired_state' };
    const integration = await this.deps.repository.findIntegrationById(flow.integration_id);
    if (!integration) return { error: 'integration_deleted' };
    const callbackUrl = new URL(integration.redirect_uri);
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) callbackUrl.searchParams.set(name, value);
    try {
      const tokens = await client.authorizationCodeGrant(this.configuration(integration), callbackUrl, {
        pkceCodeVerifier: this.deps.secrets.open(flow.verifier_enc),
        expectedState: query.state,
      });
      await this.deps.repository.upsertToken(flow.user_id, integration.id, this.sealed(tokens, null));
      return { connected: integration.id };
    } catch (error) {
      log.warn({ integrationId: integration.id, reason: providerFailure(error) }, 'OAuth callback failed');
      return {
        error: error instanceof client.AuthorizationResponseError ? error.error : 'token_exchange_failed',
      };
    }
  }

  /**
   * Spec 4.1: the caller's connection ends here, and at the provider when it has a revocation
   * endpoint (both tokens, RFC 7009 section 2). The connection is gone even when the provider
   * fails to answer: the user asked for it, and the answer says whether the provider confirmed.
   */
  async revoke(
    principal: Principal,
    integrationId: number,
    log: Logger,
  ): Promise<Static<typeof RevokeAnswer>> {
    const row = await this.requireToken(principal, integrationId);
    const integration = await this.deps.integrations.require(principal.tenantId, integrationId);
    const configuration = this.configuration(integration);
    let providerRevoked = false;
    if (configuration.serverMetadata().revocation_endpoint) {
      try {
        if (row.refresh_token_enc)
          await client.tokenRevocation(configuration, this.deps.secrets.open(row.refresh_token_enc), {
            token_type_hint: 'refresh_token',
          });
        if (row.access_token_enc)
          await client.tokenRevocation(configuration, this.deps.secrets.open(row.access_token_enc), {
            token_type_hint: 'access_token',
          });
        providerRevoked = true;
      } catch (error) {
        log.warn({ integrationId, reason: providerFailure(error) }, 'OAuth token revocation failed');
      }
    }
    await this.deps.repository.deleteToken(row.id);
    return { integrationId, revoked: true, providerRevoked };
  }

  /**
   * The user's access token for the integration, refreshed first when it expires within a
   * minute (what a data source set to query with the viewer's token calls). 404 when the user has
   * not connected; 502 `oauth_provider_error` when a needed refresh fails (recorded on the row).
   */
  async accessToken(tenantId: number, userId: number, integrationId: number): Promise<string> {
    const row = await this.deps.repository.findToken(tenantId, userId, integrationId);
    if (!row?.access_token_enc)
      throw new NotFoundError(`OAuth token of integration ${integrationId}`, 'oauth_token_not_found');
    const fresh =
      row.access_token_expires_at === null ||
      row.access_token_expires_at.getTime() > Date.now() + refreshMarginMs;
    if (fresh && row.status !== 'error') return this.deps.secrets.open(row.access_token_enc);
    const running = this.refreshing.get(row.id);
    if (running) return running;
    const refresh = this.refresh(tenantId, row).finally(() => this.refreshing.delete(row.id));
    this.refreshing.set(row.id, refresh);
    return refresh;
  }

  /**
   * For a data source that queries with each viewer's token (modules/data/run.ts `ViewerTokens`):
   * the access token as `accessToken` answers it, or null when the user has not connected.
   */
  async connectedAccessToken(
    tenantId: number,
    userId: number,
    integrationId: number,
  ): Promise<string | null> {
    try {
      return await this.accessToken(tenantId, userId, integrationId);
    } catch (error) {
      if (error instanceof NotFoundError && error.code === 'oauth_token_not_found') return null;
      throw error;
    }
  }

  /** The integration's name (what a user is asked to connect), or null when there is none. */
  async integrationName(tenantId: number, integrationId: number): Promise<string | null> {
    return (await this.deps.repository.findIntegration(tenantId, integrationId))?.name ?? null;
  }

  private async refresh(tenantId: number, row: UserOAuthTokenRow): Promise<string> {
    if (!row.refresh_token_enc)
      throw new DomainError(
        'oauth_provider_error',
        'The token has expired and the provider gave no refresh token: connect again',
      );
    const integration = await this.deps.integrations.require(tenantId, row.integration_id);
    try {
      const tokens = await client.refreshTokenGrant(
        this.configuration(integration),
        this.deps.secrets.open(row.refresh_token_enc),
      );
      // A provider that does not rotate refresh tokens answers none: the old one stays good.
      const values = this.sealed(tokens, row.refresh_token_enc);
      await this.deps.repository.updateToken(row.id, values);
      return tokens.access_token;
    } catch (error) {
      const reason = providerFailure(error);
      await this.deps.repository.updateToken(row.id, { status: 'error', lastError: reason });
      throw new DomainError('oauth_provider_error', `Refreshing the token failed: ${reason}`);
    }
  }

  private sealed(tokens: client.TokenEndpointResponse, previousRefreshEnc: string | null): TokenValues {
    const now = Date.now();
    const refreshExpiresIn = Number((tokens as Record<string, unknown>).refresh_token_expires_in);
    return {
      status: 'active',
      accessTokenEnc: this.deps.secrets.seal(tokens.access_token),
      refreshTokenEnc: tokens.refresh_token
        ? this.deps.secrets.seal(tokens.refresh_token)
        : previousRefreshEnc,
      accessTokenExpiresAt:
        typeof tokens.expires_in === 'number' ? new Date(now + tokens.expires_in * 1000) : null,
      refreshTokenExpiresAt: Number.isFinite(refreshExpiresIn)
        ? new Date(now + refreshExpiresIn * 1000)
        : null,
      lastError: null,
    };
  }

  private configuration(integration: OAuthIntegrationRow) {
    return providerConfiguration(integration, this.deps.secrets.open(integration.client_secret_enc));
  }

  private async requireToken(principal: Principal, integrationId: number): Promise<UserOAuthTokenRow> {
    const row = await this.deps.repository.findToken(principal.tenantId, principal.userId, integrationId);
    if (!row) throw new NotFoundError(`OAuth token of integration ${integrationId}`, 'oauth_token_not_found');
    return row;
  }
}
