import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../auth/authenticate.ts';
import {
  CreateUserBody,
  UpdateUserBody,
  User,
  UserIdParams,
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
        params: UserIdParams,
        response: { 200: Success },
      },
      config: { access: { role: 'admin' } },
    },
    (request) => users.delete(principalOf(request), request.params.id),
  );
};
