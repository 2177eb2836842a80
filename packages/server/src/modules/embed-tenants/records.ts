import type { EmbedTenantRow } from '../../db/schema.ts';

/**
 * How an upsert treats the user's lifetime (spec 3): `ephemeral` (re)starts it, `permanent`
 * clears it, `keep` leaves a permanent user permanent and restarts an ephemeral (or new) one.
 */
export type Lifetime = { kind: 'ephemeral' | 'keep'; ttlSeconds: number } | { kind: 'permanent' };

export interface EmbedIdentity {
  tenantId: number;
  embedTenantId: number | null;
  /** Normalised: trimmed and lowercased. */
  externalId: string;
  /** Fields given replace the stored ones; null or undefined keeps them. */
  email?: string | null;
  displayName?: string | null;
  picture?: string | null;
  internalId?: string | null;
  lifetime: Lifetime;
  /** A session opens: `last_login` moves. */
  signsIn: boolean;
}

export type EmbedTenantWithCount = EmbedTenantRow & { user_count: number };
