import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK, type JWTPayload, SignJWT } from 'jose';
import type { SecretBox } from '../../../crypto/secrets.ts';
import type { OidcIssuerRepository } from './repository.ts';

export const signingAlg = 'ES256';

export interface RotationPolicy {
  /** A key signs for this long before a new one replaces it. */
  rotateAfterMs: number;
  /** A replaced key stays in the JWKS this long, so tokens it signed still verify (longer than a token lives). */
  overlapMs: number;
}

export const defaultRotation: RotationPolicy = { rotateAfterMs: 30 * 86_400_000, overlapMs: 2 * 86_400_000 };

/**
 * The issuer's signing keys (ES256): the private halves sealed at rest, the public ones served as
 * the JWKS. The newest key signs; when it is older than the rotation period a new one is made and
 * the old one stays published for the overlap (RFC 7517; OIDC Core 10.1.1 on rotation).
 */
export class SigningKeys {
  constructor(
    private readonly repository: OidcIssuerRepository,
    private readonly secrets: SecretBox,
    private readonly policy: RotationPolicy = defaultRotation,
  ) {}

  async jwks(): Promise<{ keys: JWK[] }> {
    await this.current();
    const keys = await this.repository.liveKeys();
    return { keys: keys.map((k) => k.public_jwk as JWK) };
  }

  async sign(payload: JWTPayload, expiresAt: Date): Promise<string> {
    const key = await this.current();
    return new SignJWT(payload)
      .setProtectedHeader({ alg: signingAlg, kid: key.kid, typ: 'JWT' })
      .setIssuedAt()
      .setNotBefore(Math.floor(Date.now() / 1000) - 5)
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .setJti(randomUUID())
      .sign(await importJWK(JSON.parse(this.secrets.open(key.private_jwk_enc)) as JWK, signingAlg));
  }

  /** Makes a new key now, retiring the current one (an admin's rotation, or the period's). */
  async rotate(): Promise<void> {
    const { publicKey, privateKey } = await generateKeyPair(signingAlg, { extractable: true });
    const kid = randomUUID();
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: signingAlg, use: 'sig' };
    const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: signingAlg };
    await this.repository.rotate(
      { kid, publicJwk, privateJwkEnc: this.secrets.seal(JSON.stringify(privateJwk)) },
      new Date(Date.now() + this.policy.overlapMs),
    );
  }

  private async current() {
    const active = (await this.repository.liveKeys()).find((k) => k.retired_at === null);
    if (active && active.created_at.getTime() + this.policy.rotateAfterMs > Date.now()) return active;
    await this.rotate();
    const made = (await this.repository.liveKeys()).find((k) => k.retired_at === null);
    if (!made) throw new Error('no signing key after rotation');
    return made;
  }
}
