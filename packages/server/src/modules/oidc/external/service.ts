import * as client from 'openid-client';
import type { ExternalGrant, ExternalTokenVerifier } from '../../../auth/external-token.ts';
import type { InvalidationBus } from '../../../cache/invalidation-bus.ts';
import { type SecretBox, sha256 } from '../../../crypto/secrets.ts';
import type { UserRow } from '../../../db/schema.ts';
import { UnauthorizedError } from '../../../errors/domain-errors.ts';
import type { BrowserSessions } from '../../sign-in/sessions.ts';
import { newSessionId } from '../../sign-in/tokens.ts';
import type { TenantResolver } from '../../tenants/resolver.ts';
import type { GroupMemberships, SessionStore, UserAccounts } from './ports.ts';
import type { ExternalProvider, ProviderClaims } from './provider.ts';
import type { OidcIdentitiesRepository } from './repository.ts';

export interface OidcSignInDeps {
  provider: ExternalProvider;
  identities: OidcIdentitiesRepository;
  users: UserAccounts;
  groups: GroupMemberships;
  signIn: SessionStore;
  sessions: BrowserSessions;
  tenants: TenantResolver;
  secrets: SecretBox;
  bus: InvalidationBus;
}

/** A verified access token is trusted this long before the provider is asked again. */
const tokenCacheMs = 60_000;
const loginLifetimeMs = 10 * 60_000;

/**
 * Sign-in with an external OpenID provider (issue 22 item 7): the web app's authorization-code
 * flow with PKCE, state and nonce, ending in a browser session like a password sign-in; and the
 * provider's access tokens accepted as `Authorization: Bearer` (spec 5). A user is found by the
 * (issuer, subject) pair first, by verified email second, and created at first sign-in
 * otherwise; the groups named in the configured claim are joined (created when missing).
 */
export class OidcSignInService implements ExternalTokenVerifier {
  private readonly verified = new Map<string, { grant: ExternalGrant; until: number }>();

  constructor(private readonly deps: OidcSignInDeps) {
    // A deactivated user or a changed role must bite on the next request.
    deps.bus.subscribe('credentials', () => this.verified.clear());
  }

  get displayName(): string {
    return this.deps.provider.settings.displayName;
  }

  claims(token: string): boolean {
    return this.deps.provider.claims(token);
  }

  async verify(tenantId: number, token: string): Promise<ExternalGrant> {
    const key = `${tenantId}:${sha256(token)}`;
    const cached = this.verified.get(key);
    if (cached && cached.until > Date.now()) return cached.grant;
    const claims = await this.deps.provider.verifyAccessToken(token);
    const user = await this.userFor(tenantId, claims);
    const grant = { userId: user.id, role: user.role };
    const exp = typeof claims.exp === 'number' ? claims.exp * 1000 : Number.POSITIVE_INFINITY;
    if (this.verified.size >= 10_000) this.verified.clear();
    this.verified.set(key, { grant, until: Math.min(Date.now() + tokenCacheMs, exp) });
    return grant;
  }

  /** The provider's authorization URL for a browser signing in; `redirectUri` is this server's callback. */
  async start(host: string | undefined, redirectUri: string): Promise<string> {
    const tenant = await this.deps.tenants.resolve(host);
    const configuration = await this.deps.provider.configuration();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const verifier = client.randomPKCECodeVerifier();
    await this.deps.identities.insertLogin({
      stateHash: sha256(state),
      tenantId: tenant.id,
      verifierEnc: this.deps.secrets.seal(verifier),
      nonce,
      expiresAt: new Date(Date.now() + loginLifetimeMs),
    });
    return client.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: this.deps.provider.settings.scopes,
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).href;
  }

  /**
   * The provider's redirect back: the code exchanged with the login's verifier, the ID token
   * checked (issuer, audience, expiry, nonce), the user found or created, a session opened.
   */
  async finish(
    host: string | undefined,
    callbackUrl: URL,
  ): Promise<{ sessionId: string; expiresAt: Date } | { error: string }> {
    const state = callbackUrl.searchParams.get('state');
    if (!state) return { error: 'missing_state' };
    const login = await this.deps.identities.takeLogin(sha256(state));
    const tenant = await this.deps.tenants.resolve(host);
    if (!login || login.expires_at.getTime() <= Date.now() || login.tenant_id !== tenant.id)
      return { error: 'unknown_or_expired_state' };
    const configuration = await this.deps.provider.configuration();
    let claims: ProviderClaims;
    try {
      const tokens = await client.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: this.deps.secrets.open(login.verifier_enc),
        expectedState: state,
        expectedNonce: login.nonce,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims() as ProviderClaims;
      // Groups and email often live in userinfo only (OIDC Core 5.4: scope claims may be there).
      const info = await client
        .fetchUserInfo(configuration, tokens.access_token, idClaims.sub)
        .catch(() => ({}));
      claims = { ...info, ...idClaims };
    } catch (error) {
      return { error: error instanceof client.AuthorizationResponseError ? error.error : 'sign_in_failed' };
    }
    let user: UserRow;
    try {
      user = await this.userFor(tenant.id, claims);
    } catch {
      return { error: 'user_not_allowed' };
    }
    const { id, hash } = newSessionId();
    const { limits } = this.deps.sessions;
    const expiresAt = new Date(Date.now() + limits.maxAgeMs);
    await this.deps.signIn.pruneDeadSessions(user.id, new Date(Date.now() - limits.idleMs));
    await this.deps.signIn.insertSession({ tenantId: tenant.id, userId: user.id, hash, expiresAt });
    return { sessionId: id, expiresAt };
  }

  /** The user a provider's subject is: linked before, matched by verified email, or created. */
  private async userFor(tenantId: number, claims: ProviderClaims): Promise<UserRow> {
    const { issuer, defaultRole, groupsClaim } = this.deps.provider.settings;
    let user: UserRow | undefined;
    const linked = await this.deps.identities.userOf(tenantId, issuer, claims.sub);
    if (linked !== undefined) user = await this.deps.users.find(tenantId, linked);
    const email = typeof claims.email === 'string' ? claims.email : undefined;
    if (!user && email && claims.email_verified !== false) {
      user = await this.deps.users.findByEmail(tenantId, email);
      if (!user) {
        const name = typeof claims.name === 'string' ? claims.name.split(' ') : [];
        user = await this.deps.users
          .insert(tenantId, {
            email,
            username: email,
            firstName: typeof claims.given_name === 'string' ? claims.given_name : (name[0] ?? null),
            lastName:
              typeof claims.family_name === 'string' ? claims.family_name : name.slice(1).join(' ') || null,
            role: defaultRole,
          })
          // A concurrent first request created them: theirs is the one.
          .catch(async () => this.deps.users.findByEmail(tenantId, email));
      }
    }
    if (!user)
      throw new UnauthorizedError(
        'credential_invalid',
        'The identity provider gave no verified email to match a user',
      );
    if (user.is_deactivated) throw new UnauthorizedError('credential_invalid', 'The user is deactivated');
    await this.deps.identities.link(tenantId, issuer, claims.sub, user.id);
    const groups = groupsClaim ? claims[groupsClaim] : undefined;
    if (Array.isArray(groups)) {
      const names = groups.filter(
        (g): g is string => typeof g === 'string' && g.length > 0 && g.length <= 200,
      );
      for (const groupId of await this.deps.identities.ensureGroups(tenantId, names.slice(0, 100)))
        await this.deps.groups.addMember(groupId, user.id);
    }
    return user;
  }
}
