import { urn } from './constants.ts';
import { invalidValue } from './errors.ts';
import { isObject, type JsonObject } from './normalize.ts';
import { compact, locationOf, metaOf } from './render.ts';
import type { ScimRow } from './resource-row.ts';

/** A group of a user, for the read-only `groups` attribute (RFC 7643 section 4.1.2). */
export interface UserGroupRef {
  group_id: number;
  name: string;
}

/** Tessera emails synthesised for users without a usable address (RFC 2606 reserves .invalid). */
export const syntheticDomain = 'scim.invalid';

/** What a SCIM User becomes in Tessera's users table (CONFORMANCE.md "Mapping" in this folder). */
export interface UserRecord {
  username: string;
  externalId: string | null;
  firstName: string | null;
  lastName: string | null;
  active: boolean;
  /** The address Tessera would like as the user's email, before the uniqueness fallback. */
  preferredEmail: string;
  /** Attributes without a column (RFC 7643 section 4.1): stored as the `scim` document. */
  document: JsonObject;
}

const emailPattern = /^[^@\s]+@[^@\s]+$/;

export function syntheticEmail(userName: string): string {
  return `${encodeURIComponent(userName.toLowerCase())}@${syntheticDomain}`;
}

/** Maps a normalised User resource to columns and the `scim` document. */
export function toUserRecord(resource: JsonObject): UserRecord {
  const { userName, externalId, active, id: _id, meta: _meta, groups: _groups, ...document } = resource;
  if (typeof userName !== 'string' || userName.trim() === '')
    throw invalidValue('userName is required (RFC 7643 section 4.1)');
  const name = isObject(resource.name) ? resource.name : {};
  const emails = Array.isArray(resource.emails) ? (resource.emails as JsonObject[]) : [];
  const primary = emails.find((e) => e.primary === true) ?? emails[0];
  const candidates = [primary?.value, userName].filter(
    (v): v is string => typeof v === 'string' && emailPattern.test(v.trim()),
  );
  return {
    username: userName.trim(),
    externalId: typeof externalId === 'string' ? externalId : null,
    firstName: typeof name.givenName === 'string' ? name.givenName : null,
    lastName: typeof name.familyName === 'string' ? name.familyName : null,
    active: active !== false,
    preferredEmail: candidates[0]?.trim() ?? syntheticEmail(userName.trim()),
    document,
  };
}

/**
 * The SCIM User of a Tessera user (RFC 7643 section 4.1): columns win over the document for the
 * attributes they hold, so that changes made through the management API show up here.
 */
export function userResource(
  row: ScimRow<'users'>,
  groups: UserGroupRef[] | undefined,
  baseUrl: string,
): JsonObject {
  const doc: JsonObject = isObject(row.scim) ? row.scim : {};
  const name = {
    ...(isObject(doc.name) ? doc.name : {}),
    givenName: row.first_name,
    familyName: row.last_name,
  };
  const emails =
    doc.emails ??
    (row.email.endsWith(`@${syntheticDomain}`) ? null : [{ value: row.email, type: 'work', primary: true }]);
  const hasEnterprise = isObject(doc[urn.enterpriseUser]);
  const resource: JsonObject = {
    schemas: hasEnterprise ? [urn.user, urn.enterpriseUser] : [urn.user],
    id: String(row.id),
    externalId: row.external_id,
    userName: row.username,
    ...doc,
    name,
    emails,
    active: !row.is_deactivated,
    groups:
      groups?.map((g) => ({
        value: String(g.group_id),
        display: g.name,
        type: 'direct',
        $ref: locationOf(baseUrl, 'Group', g.group_id),
      })) ?? null,
    meta: metaOf('User', row, baseUrl),
  };
  return compact(resource) as JsonObject;
}
