import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomToken } from '../crypto/secrets.ts';

/** Writes a file readable only by its owner (0600): generated secrets and the first admin key. */
export function writePrivateFile(file: string, content: string) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/**
 * TESSERA_SECRET_KEY when set; otherwise a key generated once into the data directory
 * (DESIGN.md "Persistence"). Replicas sharing PostgreSQL must share TESSERA_SECRET_KEY.
 */
export function resolveSecretKey(configured: string | null, dataDir: string): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'secret.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const key = randomToken(32);
  writePrivateFile(file, `${key}\n`);
  return key;
}
