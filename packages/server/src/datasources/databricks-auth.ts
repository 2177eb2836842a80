import type https from 'node:https';
import { type HttpAnswer, requestText } from './http-text.ts';

/** No token and no OAuth client is saved: nothing to sign in with. */
export class DatabricksNoCredentialsError extends Error {
  override readonly name = 'DatabricksNoCredentialsError';
  readonly code = 'DATABRICKS_NO_CREDENTIALS';
}

/** The workspace's token endpoint refused the OAuth client (its id or secret), or answered no token. */
export class DatabricksOAuthError extends Error {
  override readonly name = 'DatabricksOAuthError';
  readonly code = 'DATABRICKS_OAUTH_REFUSED';
  constructor(readonly status: number) {
    super(`The workspace's OAuth token endpoint answered HTTP ${status}`);
  }
}

export interface DatabricksCredentials {
  /** A personal access token (or any token the workspace takes as a Bearer). */
  token?: string;
  /** OAuth machine-to-machine: a service principal's client id and OAuth secret. */
  clientId?: string;
  clientSecret?: string;
}

/**
 * The Bearer each request carries: the personal access token as it is, or, for a service
 * principal, an OAuth access token from the workspace's `/oidc/v1/token` (client credentials
 * grant, scope `all-apis`, the client's id and secret as HTTP Basic: Databricks' "Authorize
 * unattended access to Databricks resources with a service principal using OAuth"), fetched again
 * when less than five minutes of its lifetime (an hour) remain. Neither secret is ever in an
 * error, a log line or a response.
 */
export function bearerOf(
  credentials: DatabricksCredentials,
  base: string,
  agent: https.Agent,
  timeoutMs: number,
): () => Promise<string> {
  if (credentials.token) {
    const token = credentials.token;
    return async () => token;
  }
  const { clientId, clientSecret } = credentials;
  if (!clientId || !clientSecret)
    return async () => {
      throw new DatabricksNoCredentialsError('No access token or OAuth client is saved');
    };
  let current: { token: string; expires: number } | undefined;
  let pending: Promise<string> | undefined;
  const fetchToken = async (): Promise<string> => {
    const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString(
      'base64',
    );
    const answer: HttpAnswer = await requestText(
      'Databricks',
      new URL('/oidc/v1/token', base),
      {
        method: 'POST',
        agent,
        headers: {
          Authorization: `Basic ${basic}`,
          'Content-Type': 'application/x-www-form-urlencoded',
          Accept: 'application/json',
        },
        timeout: timeoutMs,
      },
      'grant_type=client_credentials&scope=all-apis',
    );
    if (answer.status !== 200) throw new DatabricksOAuthError(answer.status);
    let body: { access_token?: unknown; expires_in?: unknown };
    try {
      body = JSON.parse(answer.text);
    } catch {
      throw new DatabricksOAuthError(answer.status);
    }
    if (typeof body.access_token !== 'string') throw new DatabricksOAuthError(answer.status);
    const lifetime = typeof body.expires_in === 'number' ? body.expires_in : 3600;
    current = { token: body.access_token, expires: Date.now() + lifetime * 1000 };
    return current.token;
  };
  return async () => {
    if (current && current.expires - Date.now() > 300_000) return current.token;
    pending ??= fetchToken().finally(() => {
      pending = undefined;
    });
    return pending;
  };
}
