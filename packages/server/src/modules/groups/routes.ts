import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../auth/authenticate.ts';
import {
  AddMemberBody,
  CreateGroupBody,
  Group,
  GroupIdParams,
  GroupMemberParams,
  GroupMembersResponse,
  GroupsListQuery,
  GroupsListResponse,
  UpdateGroupBody,
} from './schemas.ts';
import type { GroupsService } from './service.ts';

const tags = ['Groups'];
const Success = Type.Object({ success: Type.Boolean() });

export const groupRoutes: FastifyPluginAsyncTypebox<{ groups: GroupsService }> = async (app, { groups }) => {
  const read = { access: { role: 'viewer' as const } };
  const write = { access: { role: 'admin' as const } };
  app.get(
    '/api/v1/groups',
    {
      schema: {
        tags,
        operationId: 'listGroups',
        summary: 'List global groups',
        querystring: GroupsListQuery,
        response: { 200: GroupsListResponse },
      },
      config: read,
    },
    (r) => groups.list(principalOf(r), r.query),
  );
  app.post(
    '/api/v1/groups',
    {
      schema: {
        tags,
        operationId: 'createGroup',
        summary: 'Create a global group',
        body: CreateGroupBody,
        response: { 200: Group },
      },
      config: write,
    },
    (r) => groups.create(principalOf(r), r.body),
  );
  app.get(
    '/api/v1/groups/:groupId',
    {
      schema: {
        tags,
        operationId: 'getGroup',
        summary: 'Get a group',
        params: GroupIdParams,
        response: { 200: Group },
      },
      config: read,
    },
    (r) => groups.get(principalOf(r), r.params.groupId),
  );
  app.put(
    '/api/v1/groups/:groupId',
    {
      schema: {
        tags,
        operationId: 'updateGroup',
        summary: 'Rename or describe a group',
        params: GroupIdParams,
        body: UpdateGroupBody,
        response: { 200: Group },
      },
      config: write,
    },
    (r) => groups.update(principalOf(r), r.params.groupId, r.body),
  );
  app.delete(
    '/api/v1/groups/:groupId',
    {
      schema: {
        tags,
        operationId: 'deleteGroup',
        summary: 'Delete a group',
        params: GroupIdParams,
        response: { 200: Success },
      },
      config: write,
    },
    (r) => groups.delete(principalOf(r), r.params.groupId),
  );
  app.get(
    '/api/v1/groups/:groupId/members',
    {
      schema: {
        tags,
        operationId: 'listGroupMembers',
        summary: 'Members of a group',
        params: GroupIdParams,
        response: { 200: GroupMembersResponse },
      },
      config: read,
    },
    (r) => groups.members(principalOf(r), r.params.groupId),
  );
  app.post(
    '/api/v1/groups/:groupId/members',
    {
      schema: {
        tags,
        operationId: 'addGroupMember',
        summary: 'Add a user to a group (idempotent)',
        params: GroupIdParams,
        body: AddMemberBody,
        response: { 200: GroupMembersResponse },
      },
      config: write,
    },
    (r) => groups.addMember(principalOf(r), r.params.groupId, r.body.userId),
  );
  app.delete(
    '/api/v1/groups/:groupId/members/:userId',
    {
      schema: {
        tags,
        operationId: 'removeGroupMember',
        summary: 'Remove a user from a group',
        params: GroupMemberParams,
        response: { 200: GroupMembersResponse },
      },
      config: write,
    },
    (r) => groups.removeMember(principalOf(r), r.params.groupId, r.params.userId),
  );
};
