import type { Selectable } from 'kysely';
import type { GroupsTable, ScimColumns } from '../../db/schema.ts';
import { scimPrefix, urn } from './constants.ts';
import { invalidValue } from './errors.ts';
import { isObject, type JsonObject } from './normalize.ts';
import { compact, etagOf } from './user-mapping.ts';

export type ScimGroupRow = Selectable<GroupsTable & ScimColumns> & { version: string };
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
  /** Member user ids as the client sent them (strings); unknown ones are dropped by the service. */
  members: { value: string; display?: string }[] | undefined;
}

export function toGroupRecord(resource: JsonObject): GroupRecord {
  const { displayName, externalId, members } = resource;
  if (typeof displayName !== 'string' || displayName.trim() === '')
    throw invalidValue('displayName is required (RFC 7643 section 4.2)');
  const list = Array.isArray(members) ? (members as JsonObject[]) : members === undefined ? undefined : [];
  return {
    name: displayName.trim(),
    externalId: typeof externalId === 'string' ? externalId : null,
    members: list
      ?.filter((m) => typeof m.value === 'string')
      .map((m) => ({
        value: (m.value as string).trim(),
        ...(typeof m.display === 'string' ? { display: m.display } : {}),
      })),
  };
}

/** Member displays the client supplied (members' sub-attributes are immutable, RFC 7643 section 4.2). */
export function memberDisplays(row: ScimGroupRow): Record<string, string> {
  const stored = isObject(row.scim) ? row.scim.memberDisplay : undefined;
  return isObject(stored) ? (stored as Record<string, string>) : {};
}

/** The SCIM Group of a global group; `members` undefined when excluded (not loaded). */
export function groupResource(
  row: ScimGroupRow,
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
        $ref: `${baseUrl}${scimPrefix}/Users/${m.user_id}`,
      })) ?? null,
    meta: {
      resourceType: 'Group',
      created: row.created_at.toISOString(),
      lastModified: row.updated_at.toISOString(),
      location: `${baseUrl}${scimPrefix}/Groups/${row.id}`,
      version: etagOf(row.version),
    },
  };
  return compact(resource) as JsonObject;
}
