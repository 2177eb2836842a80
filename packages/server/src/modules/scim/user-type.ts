import { sql } from 'kysely';
import type { InvalidationBus } from '../../cache/invalidation-bus.ts';
import type { Db } from '../../db/database.ts';
import { conflict } from './errors.ts';
import { booleanOperand, column, jsonCollection, relatedCollection, textOperand } from './filter-operands.ts';
import type { ScimMembershipsRepository } from './memberships-repository.ts';
import type { AdminSuccession, KeyRevoker, SessionRevoker } from './ports.ts';
import type { ScimContext } from './preconditions.ts';
import type { ScimRow } from './resource-row.ts';
import type { ScimResourceType, ScimWrite } from './resource-type.ts';
import {
  syntheticDomain,
  syntheticEmail,
  toUserRecord,
  type UserGroupRef,
  type UserRecord,
  userResource,
} from './user-mapping.ts';

/** Users' emails: the stored list, or the Tessera email for users created outside SCIM (user-mapping.ts). */
const emails = sql`coalesce(${column('scim')}->'emails', case when ${column('email')} like ${`%@${syntheticDomain}`}
  then '[]'::jsonb else jsonb_build_array(jsonb_build_object('value', ${column('email')}, 'type', 'work', 'primary', true)) end)`;

/**
 * SCIM Users (RFC 7643 section 4.1) over Tessera's users: a SCIM user is a user of the account,
 * created with the viewer role (CONFORMANCE.md "Mapping onto Tessera"). `active: false`
 * deactivates the user and revokes their API keys in the same transaction; the last active admin
 * of the account cannot be deactivated or deleted.
 */
export function scimUserType(deps: {
  users: AdminSuccession;
  apiKeys: KeyRevoker;
  /** Browser sessions (modules/sign-in), ended with the API keys. */
  sessions: SessionRevoker;
  memberships: ScimMembershipsRepository;
  bus: InvalidationBus;
}): ScimResourceType<'users', UserRecord, UserGroupRef> {
  /** Deprovisioning must not lock the account out. */
  async function keepAnAdmin(ctx: ScimContext, row: ScimRow<'users'>, tx: Db) {
    if (row.role !== 'admin' || row.is_deactivated) return;
    if ((await deps.users.countActiveAdmins(ctx.tenantId, tx)) <= 1)
      throw conflict('The account must keep at least one active admin');
  }

  return {
    kind: 'User',
    table: 'users',
    unique: { attribute: 'userName', column: 'username', of: (record) => record.username },
    operands: {
      userName: (def) => textOperand(def, column('username')),
      'name.givenName': (def) => textOperand(def, column('first_name')),
      'name.familyName': (def) => textOperand(def, column('last_name')),
      active: (def) => booleanOperand(def, sql`not ${column('is_deactivated')}`),
    },
    collections: {
      emails: (def) => jsonCollection(def, emails),
      groups: (def) =>
        relatedCollection(
          def,
          {
            from: sql`group_members gm join groups mg on mg.id = gm.group_id`,
            correlate: sql<boolean>`gm.user_id = ${column('id')}`,
          },
          { value: sql`gm.group_id::text`, display: sql`mg.name`, type: sql`'direct'` },
        ),
    },
    related: { attribute: 'groups', load: (ids, db) => deps.memberships.groupsOf(ids, db) },
    toResource: userResource,
    toRecord: toUserRecord,
    patchBase: async (row) => userResource(row, undefined, ''),
    // Okta expects the patched user back.
    patchAnswer: 200,

    /** Tessera's email is the preferred address unless another user of the account holds it. */
    async write({ ctx, record, current, rows, tx }: ScimWrite<'users', UserRecord>) {
      let email = record.preferredEmail;
      const changed = current === undefined || email.toLowerCase() !== current.email.toLowerCase();
      if (changed && (await rows.taken(ctx.tenantId, 'email', email, current?.id, tx)))
        email = syntheticEmail(record.username);
      const columns = {
        username: record.username,
        email,
        external_id: record.externalId,
        first_name: record.firstName,
        last_name: record.lastName,
        is_deactivated: !record.active,
        scim: JSON.stringify(record.document),
      };
      if (current === undefined)
        return rows.insert({ ...columns, tenant_id: ctx.tenantId, role: 'viewer' }, tx);
      if (!record.active) await keepAnAdmin(ctx, current, tx);
      await rows.update(ctx.tenantId, current.id, columns, tx);
      // Deactivation revokes every credential of the user (DESIGN.md "Identity and access").
      if (!record.active) {
        await deps.apiKeys.revokeAllOfUser(current.id, tx);
        await deps.sessions.revokeAllOfUser(current.id, tx);
      }
      return current.id;
    },
    // Deprovisioning loses no content: what the user made passes to the account's first active admin.
    async beforeDelete(ctx, row, tx) {
      await keepAnAdmin(ctx, row, tx);
      const heir = await deps.users.firstActiveAdmin(ctx.tenantId, row.id, tx);
      if (heir !== undefined) await deps.users.transferContent(row.id, heir, tx);
    },
    // Activation is read by authentication: drop cached credentials after the commit.
    afterChange: () => deps.bus.publish('credentials'),
    // The email went to another user between the check and the insert: fall back as if it had been taken.
    retryCreate: (record) => ({ ...record, preferredEmail: syntheticEmail(record.username) }),
  };
}
