import { urn } from './constants.ts';
import { invalidValue } from './errors.ts';
import { isObject, type JsonObject } from './normalize.ts';
import { compact, locationOf, metaOf } from './render.ts';
import type { ScimRow } from './resource-row.ts';

/** A member of a group, with what its display falls back to. */
export interface MemberRow {
  group_id: number;
  user_id: number;
  username: string;
  display_name: string | null;
}

/** What a SCIM Group becomes: a global group, its memberships, and the displays the client gave. */
export interface GroupRecord {
  name: string;
  externalId: string | null;
  /**
   * Members as the client sent them (values are strings). Omitted members means none: PUT replaces
   * them (RFC 7644 section 3.5.1) and a PATCH result without them has none left.
   */
  members: { value: string; display?: string }[];
}

export function toGroupRecord(resource: JsonObject): GroupRecord {
  const { displayName, externalId, members } = resource;
  if (typeof displayName !== 'string' || displayName.trim() === '')
    throw invalidValue('displayName is required (RFC 7643 section 4.2)');
  const list = Array.isArray(members) ? (members as JsonObject[]) : [];
  return {
    name: displayName.trim(),
    externalId: typeof externalId === 'string' ? externalId : null,
    members: list
      .filter((m) => typeof m.value === 'string')
      .map((m) => ({
        value: (m.value as string).trim(),
        ...(typeof m.display === 'string' ? { display: m.display } : {}),
      })),
  };
}

/** Member displays the client supplied (members' sub-attributes are immutable, RFC 7643 section 4.2). */
function memberDisplays(row: ScimRow<'groups'>): Record<string, string> {
  const stored = isObject(row.scim) ? row.scim.memberDisplay : undefined;
  return isObject(stored) ? (stored as Record<string, string>) : {};
}

/**
 * The SCIM Group of a global group; `members` undefined when excluded (not loaded). With
 * `storedDisplayOnly` a member shows only the display a client gave, not its fallback (the base a
 * PATCH applies to, so that a fallback is never stored as if given).
 */
export function groupResource(
  row: ScimRow<'groups'>,
  members: MemberRow[] | undefined,
  baseUrl: string,
  storedDisplayOnly = false,
): JsonObject {
  const displays = memberDisplays(row);
  const resource: JsonObject = {
    schemas: [urn.group],
    id: String(row.id),
    externalId: row.external_id,
    displayName: row.name,
    members:
      members?.map((m) => ({
        value: String(m.user_id),
        display: displays[String(m.user_id)] ?? (storedDisplayOnly ? null : (m.display_name ?? m.username)),
        type: 'User',
        $ref: locationOf(baseUrl, 'User', m.user_id),
      })) ?? null,
    meta: metaOf('Group', row, baseUrl),
  };
  return compact(resource) as JsonObject;
}
