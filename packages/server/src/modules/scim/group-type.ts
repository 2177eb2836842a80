import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { invalidValue } from './errors.ts';
import { column, relatedCollection, textOperand } from './filter-operands.ts';
import { type GroupRecord, groupResource, type MemberRow, toGroupRecord } from './group-mapping.ts';
import type { ScimMembershipsRepository } from './memberships-repository.ts';
import type { ScimResourceType, ScimWrite } from './resource-type.ts';

/**
 * SCIM Groups (RFC 7643 section 4.2) over Tessera's global groups; members are users of the
 * account (Tessera groups do not nest). The member displays a client gives are kept in the
 * group's `scim` document and returned (members' sub-attributes are immutable).
 */
export function scimGroupType(deps: {
  memberships: ScimMembershipsRepository;
}): ScimResourceType<'groups', GroupRecord, MemberRow> {
  /**
   * Members are users of the account (RFC 7643 section 4.2: `value` is a member's `id`). An id
   * that names none is 400 invalidValue, in the same words whether it does not exist or belongs
   * to another account, so that the answer tells nothing about other accounts. Values that cannot
   * be ids at all (not decimal integers) are ignored (CONFORMANCE.md "Leniencies").
   */
  async function checkMembers(tenantId: number, members: GroupRecord['members'], tx: Db) {
    const meant = members.filter((m) => /^\d+$/.test(m.value));
    const candidates = meant.map((m) => Number(m.value)).filter((n) => n <= 2147483647);
    const users = new Set(await deps.memberships.existingUserIds(tenantId, [...new Set(candidates)], tx));
    const unknown = meant.filter((m) => !users.has(Number(m.value))).map((m) => `"${m.value}"`);
    if (unknown.length > 0) {
      const verb = unknown.length === 1 ? 'is not the id of a user' : 'are not ids of users';
      throw invalidValue(`members: ${unknown.join(', ')} ${verb} of this account`);
    }
    return meant.map((m) => ({ userId: Number(m.value), display: m.display }));
  }

  return {
    kind: 'Group',
    table: 'groups',
    unique: { attribute: 'displayName', column: 'name', of: (record) => record.name },
    operands: { displayName: (def) => textOperand(def, column('name')) },
    collections: {
      members: (def) =>
        relatedCollection(
          def,
          {
            from: sql`group_members gm join users mu on mu.id = gm.user_id`,
            correlate: sql<boolean>`gm.group_id = ${column('id')}`,
          },
          {
            value: sql`gm.user_id::text`,
            type: sql`'User'`,
            display: sql`coalesce(${column('scim')}->'memberDisplay'->>(gm.user_id::text), mu.scim->>'displayName', mu.username)`,
          },
        ),
    },
    related: { attribute: 'members', load: (ids, db) => deps.memberships.membersOf(ids, db) },
    toResource: (row, members, baseUrl) => groupResource(row, members, baseUrl),
    toRecord: toGroupRecord,
    // Members are part of what a PATCH changes: read them in its transaction.
    patchBase: async (row, tx) =>
      groupResource(row, (await deps.memberships.membersOf([row.id], tx)).get(row.id), '', true),
    // Okta and Entra expect 204 for membership changes.
    patchAnswer: 204,

    /** The group's name and externalId, the member displays the client gave, and the membership. */
    async write({ ctx, record, current, rows, tx }: ScimWrite<'groups', GroupRecord>) {
      const members = await checkMembers(ctx.tenantId, record.members, tx);
      const memberDisplay: Record<string, string> = {};
      for (const m of members) if (m.display !== undefined) memberDisplay[String(m.userId)] = m.display;
      const columns = {
        name: record.name,
        external_id: record.externalId,
        scim: JSON.stringify({ memberDisplay }),
      };
      const id = current?.id ?? (await rows.insert({ ...columns, tenant_id: ctx.tenantId }, tx));
      if (current) await rows.update(ctx.tenantId, id, columns, tx);
      await deps.memberships.setMembers(id, [...new Set(members.map((m) => m.userId))], tx);
      return id;
    },
  };
}
