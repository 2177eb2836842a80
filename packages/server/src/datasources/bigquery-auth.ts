import { createPrivateKey, type KeyObject, sign } from 'node:crypto';

/** The key JSON could not be read (not JSON, not a service account's, a private key that does not load). */
export class BigQueryKeyError extends Error {
  override readonly name = 'BigQueryKeyError';
  readonly code = 'BIGQUERY_KEY_INVALID';
  /** @param reason what is wrong, in a few words (`its type is not service_account`) */
  constructor(readonly reason: string) {
    super(`The service account key cannot be used: ${reason}`);
  }
}

/** A service account key as Google Cloud's console and `gcloud iam service-accounts keys create` write it. */
export interface ServiceAccountKey {
  clientEmail: string;
  privateKeyId: string;
  /** The project the service account belongs to (the data source's projectId may be another). */
  projectId: string | null;
  key: KeyObject;
}

/**
 * The key JSON read: `type` service_account, `client_email`, `private_key_id` and `private_key`
 * (PKCS#8 PEM, RSA). The error never quotes the JSON nor the key.
 */
export function readServiceAccountKey(json: string): ServiceAccountKey {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(json) as Record<string, unknown>;
  } catch {
    throw new BigQueryKeyError('it is not JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || parsed.type !== 'service_account')
    throw new BigQueryKeyError('its type is not service_account');
  const { client_email: clientEmail, private_key_id: privateKeyId, private_key: pem } = parsed;
  if (typeof clientEmail !== 'string' || typeof privateKeyId !== 'string' || typeof pem !== 'string')
    throw new BigQueryKeyError('it lacks client_email, private_key_id or private_key');
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw new BigQueryKeyError('its private_key is not a PEM private key');
  }
  if (key.asymmetricKeyType !== 'rsa') throw new BigQueryKeyError('its private_key is not an RSA key');
  return {
    clientEmail,
    privateKeyId,
    projectId: typeof parsed.project_id === 'string' ? parsed.project_id : null,
    key,
  };
}

/** BigQuery's audience for self-signed JWTs ("Authenticate with JWTs", Scope and Audience). */
export const bigQueryAudience = 'https://bigquery.googleapis.com/';
/** A self-signed JWT lives an hour at most, as Google's service-account tokens; a new one is made before. */
export const jwtLifetimeSeconds = 3600;

const base64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/**
 * A self-signed JWT for the BigQuery API (https://cloud.google.com/bigquery/docs/json-web-tokens,
 * and "Addendum: Service account authorization without OAuth" of Google's OAuth 2.0 for server
 * to server applications): RS256 with the key's `private_key_id` as `kid`, `iss` and `sub` the
 * service account's email, `aud` https://bigquery.googleapis.com/, `iat` now and `exp` within the
 * hour; sent as `Authorization: Bearer`, with no call to Google's token endpoint.
 */
export function selfSignedJwt(account: ServiceAccountKey, nowSeconds: number): string {
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: account.privateKeyId }));
  const payload = base64url(
    JSON.stringify({
      iss: account.clientEmail,
      sub: account.clientEmail,
      aud: bigQueryAudience,
      iat: nowSeconds,
      exp: nowSeconds + jwtLifetimeSeconds,
    }),
  );
  const signature = sign('RSA-SHA256', Buffer.from(`${header}.${payload}`), account.key);
  return `${header}.${payload}.${base64url(signature)}`;
}
