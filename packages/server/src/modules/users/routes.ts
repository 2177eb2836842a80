import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../auth/authenticate.ts';
import {
  BulkUserActionInput,
  BulkUserActionPayload,
  CreateUserBody,
  MyProfileBody,
  UpdateUserBody,
  User,
  UserIdParams,
  UserSettingsInput,
  UsersListQuery,
  UsersListResponse,
} from './schemas.ts';
import type { UsersService } from './service.ts';

const tags = ['Users Admin'];
const Success = Type.Object({ success: Type.Boolean() });

export const userRoutes: FastifyPluginAsyncTypebox<{ users: UsersService }> = async (app, { users }) => {
  app.get(
    '/api/v1/users',
    {
      schema: {
        tags,
        operationId: 'listUsers',
        summary: 'List users',
        querystring: UsersListQuery,
        response: { 200: UsersListResponse },
      },
      config: { access: { role: 'admin' } },
    },
    (request) => users.list(principalOf(request), request.query),
  );
  app.get(
    '/api/v1/users/me',
    {
      schema: {
        tags: ['Users'],
        operationId: 'getMe',
        summary: 'The user behind the credential',
        response: { 200: User },
      },
      config: { access: { role: 'viewer', scopedKeys: 'filter' } },
    },
    (request) => users.get(principalOf(request), principalOf(request).userId),
  );
  app.patch(
    '/api/v1/users/me/settings',
    {
      schema: {
        tags: ['Users'],
        operationId: 'updateMySettings',
        summary: 'Update my settings',
        description:
          "Merges a partial patch into the caller's own settings: omitted fields stay, `null` clears one, " +
          '`sheets` merges field by field. `lastSeenChangelogId` is accepted and ignored.',
        body: UserSettingsInput,
        response: { 200: User },
      },
      config: { access: { role: 'viewer', scopedKeys: 'filter' } },
    },
    (request) => users.updateMySettings(principalOf(request), request.body),
  );
  app.patch(
    '/api/v1/users/me',
    {
      schema: {
        tags: ['Users'],
        operationId: 'updateMyProfile',
        summary: 'Update my profile',
        description:
          "The caller's own names and email, the address notifications reach them at (409 `user_exists` " +
          'when another user has it).',
        body: MyProfileBody,
        response: { 200: User },
      },
      config: { access: { role: 'viewer', scopedKeys: 'filter' } },
    },
    (request) => users.updateMyProfile(principalOf(request), request.body),
  );
  app.post(
    '/api/v1/users/bulk',
    {
      schema: {
        tags,
        operationId: 'bulkUserAction',
        summary: 'Apply an action to many users',
        description:
          'DEACTIVATE (revokes their keys and ends their sessions), ACTIVATE or DELETE up to 100 users, each in ' +
          'its own transaction, in order; repeated ids once. 200 whenever the request is well formed: ' +
          '`failed` lists each user the action was not applied to with the status and message the ' +
          'single-user call answers (404 unknown, 403 yourself or the last admin when deactivating, 400 ' +
          'deleting yourself).',
        body: BulkUserActionInput,
        response: { 200: BulkUserActionPayload },
      },
      config: { access: { role: 'admin' } },
    },
    (request) => users.bulk(principalOf(request), request.body),
  );
  app.post(
    '/api/v1/users',
    {
      schema: {
        tags,
        operationId: 'createUser',
        summary: 'Create user',
        body: CreateUserBody,
        response: { 200: User },
      },
      config: { access: { role: 'admin' } },
    },
    (request) => users.create(principalOf(request), request.body),
  );
  app.get(
    '/api/v1/users/:id',
    {
      schema: {
        tags,
        operationId: 'getUser',
        summary: 'Get user',
        params: UserIdParams,
        response: { 200: User },
      },
      config: { access: { role: 'admin' } },
    },
    (request) => users.get(principalOf(request), request.params.id),
  );
  app.put(
    '/api/v1/users/:id',
    {
      schema: {
        tags,
        operationId: 'updateUser',
        summary: 'Update user; deactivating revokes their credentials',
        description:
          'Deactivating revokes every API key and ends every session of the user at once, on every replica; ' +
          'a new `password` ends their sessions. Deactivating yourself, or the last active admin: 403.',
        params: UserIdParams,
        body: UpdateUserBody,
        response: { 200: User },
      },
      config: { access: { role: 'admin' } },
    },
    (request) => users.update(principalOf(request), request.params.id, request.body),
  );
  app.delete(
    '/api/v1/users/:id',
    {
      schema: {
        tags,
        operationId: 'deleteUser',
        summary: 'Delete user',
        description:
          "Revokes the user's keys and sessions; what they made or own (workbooks, reports, folders, " +
          'dashboards, notifications, chat threads) passes to the admin who deletes them. Yourself: 400; ' +
          'the last active admin: 403.',
        params: UserIdParams,
        response: { 200: Success },
      },
      config: { access: { role: 'admin' } },
    },
    (request) => users.delete(principalOf(request), request.params.id),
  );
};
