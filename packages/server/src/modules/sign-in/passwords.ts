import { hash, verify } from '@node-rs/argon2';
import { randomToken } from '../../crypto/secrets.ts';

/** Shortest password accepted when one is chosen (NIST SP 800-63B section 3.1.1.2 asks for 8 or more). */
export const passwordMinLength = 12;
/** Longest accepted: enough for any passphrase, short enough that hashing it costs nothing extra. */
export const passwordMaxLength = 1024;

/**
 * argon2id with the parameters of OWASP's Password Storage Cheat Sheet (19 MiB, two passes, one
 * lane), stored as a PHC string that carries them, so that raising them later still verifies
 * older hashes. @node-rs/argon2 hashes on libuv's thread pool, off the event loop.
 */
const options = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, options);
}

/** A hash of nothing anyone knows, verified in place of a missing one (below). */
let dummyHash: Promise<string> | undefined;

/**
 * Whether `password` matches `stored`. With no stored hash (unknown email, deactivated user, no
 * password set) a dummy hash is verified instead and the answer is false, so that every refusal
 * costs the same argon2 work and timing does not tell which accounts exist. The comparison of the
 * digests inside argon2's verify is constant-time.
 */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  dummyHash ??= hashPassword(randomToken(32));
  try {
    const matches = await verify(stored ?? (await dummyHash), password);
    return stored !== null && matches;
  } catch {
    // A stored value that is no PHC string (edited by hand): no password matches it.
    return false;
  }
}

/** A generated password: 24 base64url characters, 144 random bits. */
export function generatePassword(): string {
  return randomToken(18);
}
