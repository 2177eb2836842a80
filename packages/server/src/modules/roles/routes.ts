import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../auth/authenticate.ts';
import {
  Role,
  RoleCreateBody,
  RoleGroupParams,
  RoleIdParams,
  RolesListQuery,
  RolesListResponse,
  RoleUpdateBody,
  RoleUserParams,
} from './schemas.ts';
import type { RolesService } from './service.ts';

const tags = ['Roles'];
const NoContent = { 204: Type.Null() };
const admin = { access: { role: 'admin' as const } };

/** The reference's Roles group, admins only. */
export const roleRoutes: FastifyPluginAsyncTypebox<{ roles: RolesService }> = async (app, { roles }) => {
  app.get(
    '/api/v1/roles',
    {
      schema: {
        tags,
        operationId: 'getRoles',
        summary: 'List custom roles',
        description: "The tenant's custom roles, newest first. The built-in roles are not listed.",
        querystring: RolesListQuery,
        response: { 200: RolesListResponse },
      },
      config: admin,
    },
    (request) => roles.list(principalOf(request), request.query),
  );
  app.post(
    '/api/v1/roles',
    {
      schema: {
        tags,
        operationId: 'createRole',
        summary: 'Create a custom role',
        description:
          'Names are unique regardless of case (409 `role_exists`); the built-in names are refused (400). A ' +
          '`Global` policy with `AIBIDevelop` grants developer everywhere, with `AIBIView` or `AIBIExplore` ' +
          'viewer; a `Deployment` policy grants on the deployments it names (ids as strings, or `All`): ' +
          'developer unless it holds only read actions. No role makes a user an admin.',
        body: RoleCreateBody,
        response: { 200: Role },
      },
      config: admin,
    },
    (request) => roles.create(principalOf(request), request.body),
  );
  app.get(
    '/api/v1/roles/:roleId',
    {
      schema: {
        tags,
        operationId: 'getRole',
        summary: 'Get a role',
        params: RoleIdParams,
        response: { 200: Role },
      },
      config: admin,
    },
    (request) => roles.get(principalOf(request), request.params.roleId),
  );
  app.put(
    '/api/v1/roles/:roleId',
    {
      schema: {
        tags,
        operationId: 'updateRole',
        summary: 'Update a custom role',
        description:
          'Changes the fields present; `policies` replaces the policies outright. Built-in roles: 403.',
        params: RoleIdParams,
        body: RoleUpdateBody,
        response: { 200: Role },
      },
      config: admin,
    },
    (request) => roles.update(principalOf(request), request.params.roleId, request.body),
  );
  app.delete(
    '/api/v1/roles/:roleId',
    {
      schema: {
        tags,
        operationId: 'deleteRole',
        summary: 'Delete a custom role',
        description: 'And every assignment of it, to users and to groups. Built-in roles: 403.',
        params: RoleIdParams,
        response: NoContent,
      },
      config: admin,
    },
    async (request, reply) => {
      await roles.delete(principalOf(request), request.params.roleId);
      return reply.code(204).send(null);
    },
  );
  app.put(
    '/api/v1/roles/:roleId/users/:userId',
    {
      schema: {
        tags,
        operationId: 'assignRoleToUser',
        summary: 'Assign a role to a user',
        description:
          'Idempotent. A built-in role may be assigned too, but Admin (404): no call here makes an admin.',
        params: RoleUserParams,
        response: NoContent,
      },
      config: admin,
    },
    async (request, reply) => {
      await roles.assign(principalOf(request), request.params.roleId, request.params.userId);
      return reply.code(204).send(null);
    },
  );
  app.delete(
    '/api/v1/roles/:roleId/users/:userId',
    {
      schema: {
        tags,
        operationId: 'removeRoleFromUser',
        summary: 'Remove a role from a user',
        description: 'Idempotent; 404 when the user is unknown.',
        params: RoleUserParams,
        response: NoContent,
      },
      config: admin,
    },
    async (request, reply) => {
      await roles.unassign(principalOf(request), request.params.roleId, request.params.userId);
      return reply.code(204).send(null);
    },
  );
  // Not in the reference, which deletes a role's group assignments with the role but has no call
  // to make one: the smallest pair that mirrors the user assignment above.
  app.put(
    '/api/v1/roles/:roleId/groups/:groupId',
    {
      schema: {
        tags,
        operationId: 'assignRoleToGroup',
        summary: 'Assign a role to a group',
        description:
          'Tessera addition (the reference names no operation for it). Every member of the global group holds ' +
          'the role, and gains or loses it as they join or leave the group, on the next request on every ' +
          'replica. Idempotent. 404 when the group or the role is unknown; Admin cannot be assigned (404), as ' +
          'for users.',
        params: RoleGroupParams,
        response: NoContent,
      },
      config: admin,
    },
    async (request, reply) => {
      await roles.assignToGroup(principalOf(request), request.params.roleId, request.params.groupId);
      return reply.code(204).send(null);
    },
  );
  app.delete(
    '/api/v1/roles/:roleId/groups/:groupId',
    {
      schema: {
        tags,
        operationId: 'removeRoleFromGroup',
        summary: 'Remove a role from a group',
        description:
          'Tessera addition (the reference names no operation for it). Idempotent; 404 when the group is ' +
          'unknown. Members keep the role only if it is assigned to them otherwise.',
        params: RoleGroupParams,
        response: NoContent,
      },
      config: admin,
    },
    async (request, reply) => {
      await roles.unassignFromGroup(principalOf(request), request.params.roleId, request.params.groupId);
      return reply.code(204).send(null);
    },
  );
};
