import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign } from 'node:crypto';

/** The private key could not be read (not PEM, not RSA, or a wrong passphrase); its text is never in the error. */
export class SnowflakeKeyError extends Error {
  override readonly name = 'SnowflakeKeyError';
  readonly code = 'SNOWFLAKE_KEY_INVALID';
}

/** The data source has neither a private key nor an OAuth token saved. */
export class SnowflakeNoCredentialsError extends Error {
  override readonly name = 'SnowflakeNoCredentialsError';
  readonly code = 'SNOWFLAKE_NO_CREDENTIALS';
}

/** A PEM private key as a key object; only RSA keys sign Snowflake's JWTs (RS256). */
export function readPrivateKey(pem: string, passphrase: string | undefined): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem', ...(passphrase ? { passphrase } : {}) });
  } catch {
    throw new SnowflakeKeyError('The private key is not a PEM private key, or its passphrase is wrong');
  }
  if (key.asymmetricKeyType !== 'rsa') throw new SnowflakeKeyError('The private key is not an RSA key');
  return key;
}

/**
 * The account as the JWT's claims name it: upper case, without the region and cloud of an account
 * locator (`xy12345.us-east-1` is `XY12345`), as Snowflake's key-pair authentication asks.
 */
export function accountClaim(account: string): string {
  return account.split('.')[0]!.toUpperCase();
}

/** `SHA256:` and the base64 SHA-256 of the public key's DER (SPKI): DESCRIBE USER's RSA_PUBLIC_KEY_FP. */
export function publicKeyFingerprint(key: KeyObject): string {
  const der = createPublicKey(key).export({ type: 'spki', format: 'der' });
  return `SHA256:${createHash('sha256').update(der).digest('base64')}`;
}

const base64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/** A JWT lives at most an hour (Snowflake refuses a longer `exp`); a new one is made before. */
export const jwtLifetimeSeconds = 3600;

/**
 * The key-pair JWT of Snowflake's SQL API ("Using key-pair authentication"): RS256, `iss`
 * `<ACCOUNT>.<USER>.SHA256:<fingerprint>`, `sub` `<ACCOUNT>.<USER>`, `iat` now and `exp` within
 * the hour. Built with node:crypto: no JWT library for one signature.
 */
export function keyPairJwt(account: string, user: string, key: KeyObject, nowSeconds: number): string {
  const subject = `${accountClaim(account)}.${user.toUpperCase()}`;
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const payload = base64url(
    JSON.stringify({
      iss: `${subject}.${publicKeyFingerprint(key)}`,
      sub: subject,
      iat: nowSeconds,
      exp: nowSeconds + jwtLifetimeSeconds,
    }),
  );
  const signature = sign('RSA-SHA256', Buffer.from(`${header}.${payload}`), key);
  return `${header}.${payload}.${base64url(signature)}`;
}
