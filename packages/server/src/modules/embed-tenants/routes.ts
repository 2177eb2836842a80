import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { CursorQuery } from '../../pagination/page.ts';
import type { EmbedGroupsService } from './groups-service.ts';
import {
  CanonicalEmbedTenantParams,
  CreateEmbedGroupBody,
  CreateEmbedTenantBody,
  EmbedGroup,
  EmbedGroupMembersBody,
  EmbedGroupMembersMutation,
  EmbedGroupParams,
  EmbedGroupsResponse,
  EmbedTenant,
  EmbedTenantParams,
  EmbedTenantsQuery,
  EmbedTenantsResponse,
  EmbedUser,
  EmbedUsersQuery,
  EmbedUsersResponse,
  ProvisionEmbedUserBody,
  ProvisionEmbedUsersBody,
  ProvisionEmbedUsersResponse,
  UpdateEmbedGroupBody,
} from './schemas.ts';
import type { EmbedTenantsService } from './service.ts';

const tags = ['Embed Tenants'];
/** The reference: every Embed Tenants operation is admin only. */
const admin = { access: { role: 'admin' as const } };
const PageQuery = Type.Object({ ...CursorQuery });
const base = '/api/v1/embed-tenants/:embedTenantName';

export const embedTenantRoutes: FastifyPluginAsyncTypebox<{
  tenants: EmbedTenantsService;
  groups: EmbedGroupsService;
}> = async (app, { tenants, groups }) => {
  app.get(
    '/api/v1/embed-tenants',
    {
      schema: {
        tags,
        operationId: 'listEmbedTenants',
        summary: 'List embed tenants',
        querystring: EmbedTenantsQuery,
        response: { 200: EmbedTenantsResponse },
      },
      config: admin,
    },
    (r) => tenants.list(principalOf(r), r.query),
  );
  app.post(
    '/api/v1/embed-tenants',
    {
      schema: {
        tags,
        operationId: 'createEmbedTenant',
        summary: 'Create an embed tenant (or return it)',
        description: 'Sessions and provisioning also create embed tenants on demand.',
        body: CreateEmbedTenantBody,
        response: { 200: EmbedTenant },
      },
      config: admin,
    },
    (r) => tenants.create(principalOf(r), r.body),
  );
  app.get(
    base,
    {
      schema: {
        tags,
        operationId: 'getEmbedTenant',
        summary: 'Get an embed tenant',
        params: EmbedTenantParams,
        response: { 200: EmbedTenant },
      },
      config: admin,
    },
    (r) => tenants.get(principalOf(r), r.params.embedTenantName),
  );
  app.delete(
    base,
    {
      schema: {
        tags,
        operationId: 'deleteEmbedTenant',
        summary: 'Delete an embed tenant',
        description:
          'With its users, groups, memberships, sessions and shares. Idempotent. The name must be canonical (lowercase): ' +
          'another casing is 400, so that a typo never deletes a tenant not named exactly.',
        params: CanonicalEmbedTenantParams,
        response: { 204: Type.Null() },
      },
      config: admin,
    },
    async (r, reply) => {
      await tenants.delete(principalOf(r), r.params.embedTenantName);
      return reply.code(204).send(null);
    },
  );

  app.get(
    `${base}/groups`,
    {
      schema: {
        tags,
        operationId: 'getEmbedGroups',
        summary: "List an embed tenant's groups, newest first",
        description:
          'Admins: any embed tenant. An embed token in creator mode: its own embed tenant only (404 for any ' +
          'other), the only groups its creator-mode interface shows (spec 4.3 rules 1 and 2).',
        params: EmbedTenantParams,
        querystring: PageQuery,
        response: { 200: EmbedGroupsResponse },
      },
      config: { access: { role: 'admin', embed: 'create' } },
    },
    (r) => groups.list(principalOf(r), r.params.embedTenantName, r.query),
  );
  app.post(
    `${base}/groups`,
    {
      schema: {
        tags,
        operationId: 'createEmbedGroup',
        summary: 'Create an embed group',
        description:
          'Unique in the tenant, not starting with `system:` (400 `embed_group_name_unavailable`).',
        params: EmbedTenantParams,
        body: CreateEmbedGroupBody,
        response: { 200: EmbedGroup },
      },
      config: admin,
    },
    (r) => groups.create(principalOf(r), r.params.embedTenantName, r.body),
  );
  app.get(
    `${base}/groups/:id`,
    {
      schema: {
        tags,
        operationId: 'getEmbedGroup',
        summary: 'Get an embed group',
        params: EmbedGroupParams,
        response: { 200: EmbedGroup },
      },
      config: admin,
    },
    (r) => groups.get(principalOf(r), r.params.embedTenantName, r.params.id),
  );
  app.patch(
    `${base}/groups/:id`,
    {
      schema: {
        tags,
        operationId: 'updateEmbedGroup',
        summary: "Update an embed group's description (its name is immutable)",
        params: EmbedGroupParams,
        body: UpdateEmbedGroupBody,
        response: { 200: EmbedGroup },
      },
      config: admin,
    },
    (r) => groups.update(principalOf(r), r.params.embedTenantName, r.params.id, r.body),
  );
  app.delete(
    `${base}/groups/:id`,
    {
      schema: {
        tags,
        operationId: 'deleteEmbedGroup',
        summary: 'Delete an embed group without members',
        params: EmbedGroupParams,
        response: { 204: Type.Null() },
      },
      config: admin,
    },
    async (r, reply) => {
      await groups.delete(principalOf(r), r.params.embedTenantName, r.params.id);
      return reply.code(204).send(null);
    },
  );
  app.get(
    `${base}/groups/:id/users`,
    {
      schema: {
        tags,
        operationId: 'getEmbedGroupMembers',
        summary: 'List embed group members, most recently added first',
        params: EmbedGroupParams,
        querystring: PageQuery,
        response: { 200: EmbedUsersResponse },
      },
      config: admin,
    },
    (r) => groups.members(principalOf(r), r.params.embedTenantName, r.params.id, r.query),
  );
  app.post(
    `${base}/groups/:id/users`,
    {
      schema: {
        tags,
        operationId: 'addEmbedGroupMembers',
        summary: 'Add embed group members',
        description: 'An unknown `externalId` is provisioned; an unknown `embedUserId` is 404. Idempotent.',
        params: EmbedGroupParams,
        body: EmbedGroupMembersBody,
        response: { 200: EmbedGroupMembersMutation },
      },
      config: admin,
    },
    (r) => groups.addMembers(principalOf(r), r.params.embedTenantName, r.params.id, r.body.members),
  );
  app.delete(
    `${base}/groups/:id/users`,
    {
      schema: {
        tags,
        operationId: 'removeEmbedGroupMembers',
        summary: 'Remove embed group members',
        params: EmbedGroupParams,
        body: EmbedGroupMembersBody,
        response: { 204: Type.Null() },
      },
      config: admin,
    },
    async (r, reply) => {
      await groups.removeMembers(principalOf(r), r.params.embedTenantName, r.params.id, r.body.members);
      return reply.code(204).send(null);
    },
  );

  app.get(
    `${base}/users`,
    {
      schema: {
        tags,
        operationId: 'listEmbedUsers',
        summary: "List an embed tenant's users, by email",
        params: EmbedTenantParams,
        querystring: EmbedUsersQuery,
        response: { 200: EmbedUsersResponse },
      },
      config: admin,
    },
    (r) => tenants.users(principalOf(r), r.params.embedTenantName, r.query),
  );
  app.post(
    `${base}/user`,
    {
      schema: {
        tags,
        operationId: 'provisionEmbedUser',
        summary: 'Provision an embed user',
        description:
          'Idempotent; the body is the desired state. The embed tenant is created on demand. Group lanes given are ' +
          'replaced (`[]` clears), omitted ones kept; unknown groups are 400 `unknown_group`.',
        params: EmbedTenantParams,
        body: ProvisionEmbedUserBody,
        response: { 200: EmbedUser },
      },
      config: admin,
    },
    (r) => tenants.provision(principalOf(r), r.params.embedTenantName, r.body),
  );
  app.post(
    `${base}/users`,
    {
      schema: {
        tags,
        operationId: 'provisionEmbedUsers',
        summary: 'Provision embed users in bulk (partially successful)',
        params: EmbedTenantParams,
        body: ProvisionEmbedUsersBody,
        response: { 200: ProvisionEmbedUsersResponse },
      },
      config: admin,
    },
    (r) => tenants.provisionMany(principalOf(r), r.params.embedTenantName, r.body),
  );
};
