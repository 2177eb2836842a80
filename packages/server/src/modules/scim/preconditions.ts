import type { Principal } from '../../auth/principal.ts';
import { notFound, preconditionFailed } from './errors.ts';
import { etagOf } from './render.ts';
import type { ResourceKind } from './schema-defs.ts';

/** Where a resource's URLs start, and whose store it lives in. */
export interface ScimContext {
  tenantId: number;
  /** `https://tenant.example.com`: meta.location and Location are built on it. */
  baseUrl: string;
  /** Who asks (the SCIM token's principal): what the audit log names (issue 22 item 5). */
  principal?: Principal;
}

/**
 * If-Match (RFC 7644 section 3.14, RFC 9110 section 13.1.1): `*` or a list of entity tags; weak
 * tags compare by their opaque part. A mismatch is 412 and changes nothing.
 */
export function checkIfMatch(ifMatch: string | undefined, version: string) {
  if (ifMatch === undefined || ifMatch.trim() === '*') return;
  const current = etagOf(version);
  const strip = (tag: string) => tag.trim().replace(/^W\//, '');
  const ok = ifMatch.split(',').some((tag) => strip(tag) === strip(current));
  if (!ok) throw preconditionFailed(`The resource has changed: its version is ${current}`);
}

/** SCIM ids are Tessera's integer ids as strings; anything else names no resource. */
export function parseId(id: string, what: ResourceKind): number {
  const n = /^\d{1,10}$/.test(id) ? Number(id) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > 2147483647) throw notFound(`${what} ${id}`);
  return n;
}

export const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === '23505';
