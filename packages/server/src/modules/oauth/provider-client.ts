import * as client from 'openid-client';
import type { OAuthIntegrationRow } from '../../db/schema.ts';

/**
 * An integration as openid-client sees it: its endpoints as authorization-server metadata and
 * its client credentials (client_secret_basic, RFC 6749 section 2.3.1). Plain HTTP is allowed
 * only to loopback addresses (a provider on the same machine, as in development and tests);
 * anywhere else the library requires HTTPS.
 */
export function providerConfiguration(
  integration: OAuthIntegrationRow,
  clientSecret: string,
): client.Configuration {
  const settings = integration.config ?? {};
  const issuer = typeof settings.issuer === 'string' ? settings.issuer : new URL(integration.auth_url).origin;
  const revocation = typeof settings.revocationUrl === 'string' ? settings.revocationUrl : undefined;
  const configuration = new client.Configuration(
    {
      issuer,
      authorization_endpoint: integration.auth_url,
      token_endpoint: integration.token_url,
      ...(revocation ? { revocation_endpoint: revocation } : {}),
    },
    integration.client_id,
    { redirect_uris: [integration.redirect_uri] },
    client.ClientSecretBasic(clientSecret),
  );
  const urls = [integration.auth_url, integration.token_url, revocation].filter((u) => u !== undefined);
  if (urls.every(isLoopback)) client.allowInsecureRequests(configuration);
  return configuration;
}

export function isLoopback(address: string): boolean {
  const host = new URL(address).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Words for a provider failure that carry no token or secret: the OAuth error code and description. */
export function providerFailure(error: unknown): string {
  if (error instanceof client.ResponseBodyError)
    return `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`.slice(0, 500);
  if (error instanceof client.AuthorizationResponseError)
    return `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`.slice(0, 500);
  if (error instanceof Error && 'code' in error && typeof error.code === 'string')
    return `${error.code}: ${error.message}`.slice(0, 500);
  return 'the provider could not be reached';
}
