import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import Provider, { type ClientMetadata } from 'oidc-provider';

/** A user of the test provider: the claims it answers for them. */
export interface ProviderAccount {
  sub: string;
  email: string;
  name?: string;
  groups?: string[];
}

export interface TestOidcProvider {
  issuer: string;
  provider: Provider;
  /** Adds or replaces an account. */
  account(account: ProviderAccount): void;
  /** Who the next interactive sign-in at the provider signs in as (its login page is automatic). */
  signInAs(sub: string): void;
  /** Lifetime of access tokens issued from now on, in seconds. */
  accessTokenTtl(seconds: number): void;
  /**
   * A JWT access token (RFC 9068) signed with the provider's own key, as a provider configured for
   * JWT access tokens issues them; `expiresIn` may be negative (already expired).
   */
  jwtAccessToken(sub: string, audience: string, expiresIn: number): Promise<string>;
  /** An access token for `sub`, as the provider would issue to `clientId` (client credentials aside). */
  accessTokenFor(sub: string, clientId: string, scope?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * `oidc-provider` (a certified OpenID Provider) on a loopback port in the test process: real
 * discovery, authorization with PKCE, token, refresh, revocation (RFC 7009), userinfo and JWKS.
 * Its login page signs in whoever `signInAs` named, and consent is granted for what is asked, so
 * that a test drives the whole authorization-code flow over HTTP without a form.
 */
export async function startOidcProvider(clients: ClientMetadata[]): Promise<TestOidcProvider> {
  const accounts = new Map<string, ProviderAccount>();
  let nextSub: string | undefined;
  let ttl = 3600;
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-provider-key', alg: 'RS256', use: 'sig' };

  const provider = new Provider(issuer, {
    clients,
    jwks: { keys: [jwk] },
    cookies: { keys: ['test provider cookie key'] },
    scopes: ['openid', 'offline_access', 'email', 'profile', 'groups', 'api:read'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    findAccount: async (_ctx, sub) => {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        claims: async () => ({
          sub,
          email: account.email,
          email_verified: true,
          name: account.name,
          groups: account.groups ?? [],
        }),
      };
    },
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      introspection: { enabled: true },
    },
    pkce: { required: () => true },
    // Refresh tokens for every client allowed the grant, `offline_access` asked or not.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: {
      AccessToken: () => ttl,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: 86_400,
      Interaction: 600,
      Session: 3600,
      Grant: 86_400,
    },
    // Consent is granted for whatever the client asks (a first-party provider's policy).
    loadExistingGrant: async (ctx) => {
      const grantId =
        ctx.oidc.result?.consent?.grantId || ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
      const grant = grantId
        ? await ctx.oidc.provider.Grant.find(grantId)
        : new ctx.oidc.provider.Grant({
            clientId: ctx.oidc.client!.clientId,
            accountId: ctx.oidc.session!.accountId,
          });
      if (!grant) return undefined;
      grant.addOIDCScope([...ctx.oidc.requestParamScopes].join(' '));
      await grant.save();
      return grant;
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  });
  provider.on('server_error', (_ctx, error) => console.error('test OIDC provider error', error));
  provider.on('authorization.error', (_ctx, error) =>
    console.error(
      'test OIDC provider refused an authorization:',
      error.message,
      (error as { error_description?: string }).error_description,
    ),
  );
  const callback = provider.callback();
  server.on('request', async (req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      try {
        const details = await provider.interactionDetails(req, res);
        if (details.prompt.name === 'login') {
          if (!nextSub) throw new Error('no account to sign in: call signInAs first');
          await provider.interactionFinished(
            req,
            res,
            { login: { accountId: nextSub } },
            { mergeWithLastSubmission: false },
          );
        } else {
          // Consent, which native clients (RFC 8252) are always asked for: granted as asked.
          const grant = new provider.Grant({
            accountId: details.session?.accountId,
            clientId: String(details.params.client_id),
          });
          grant.addOIDCScope(String(details.params.scope ?? 'openid'));
          const grantId = await grant.save();
          await provider.interactionFinished(
            req,
            res,
            { consent: { grantId } },
            { mergeWithLastSubmission: true },
          );
        }
      } catch (error) {
        res.statusCode = 500;
        res.end(String(error));
      }
      return;
    }
    callback(req, res);
  });

  return {
    issuer,
    provider,
    account: (account) => accounts.set(account.sub, account),
    signInAs: (sub) => {
      nextSub = sub;
    },
    accessTokenTtl: (seconds) => {
      ttl = seconds;
    },
    jwtAccessToken: (sub, audience, expiresIn) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ client_id: audience, scope: 'openid email' })
        .setProtectedHeader({ alg: 'RS256', kid: jwk.kid, typ: 'at+jwt' })
        .setIssuer(issuer)
        .setSubject(sub)
        .setAudience(audience)
        .setIssuedAt(now - 120)
        .setExpirationTime(now + expiresIn)
        .setJti(Math.random().toString(36).slice(2))
        .sign(privateKey);
    },
    accessTokenFor: async (sub, clientId, scope = 'openid email profile groups') => {
      const client = await provider.Client.find(clientId);
      if (!client) throw new Error(`no client ${clientId}`);
      const grant = new provider.Grant({ clientId, accountId: sub });
      grant.addOIDCScope(scope);
      const grantId = await grant.save();
      const token = new provider.AccessToken({
        accountId: sub,
        client,
        grantId,
        scope,
        gty: 'authorization_code',
      });
      return token.save();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Follows redirects as a browser does, with a cookie jar per host, until a response is not a
 * redirect or its Location leaves for `stopAt` (an origin): that Location is answered.
 */
export async function followRedirects(start: string, stopAt: string): Promise<string> {
  const jar = new Map<string, string>();
  let url = start;
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(stopAt)) return url;
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const set of res.headers.getSetCookie()) {
      const [pair = ''] = set.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location)
      throw new Error(`the provider answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    await res.body?.cancel();
    url = new URL(location, url).href;
  }
  throw new Error('too many redirects');
}
