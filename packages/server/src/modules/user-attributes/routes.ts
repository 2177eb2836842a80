import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../auth/authenticate.ts';
import {
  UserAttribute,
  UserAttributeCreateInput,
  UserAttributeIdParams,
  UserAttributesListQuery,
  UserAttributesListResponse,
  UserAttributeUpdateInput,
  UserAttributeValue,
  UserAttributeValueCreateInput,
  UserIdParams,
} from './schemas.ts';
import type { UserAttributesService } from './service.ts';

const admin = { access: { role: 'admin' } } as const;

/** The reference's User Attributes and User Attribute Values groups (issue 22 item 3), for admins. */
export const userAttributeRoutes: FastifyPluginAsyncTypebox<{
  userAttributes: UserAttributesService;
}> = async (app, { userAttributes }) => {
  app.get(
    '/api/v1/user-attributes',
    {
      schema: {
        tags: ['User Attributes'],
        operationId: 'getUserAttributes',
        summary: 'Get user attributes',
        description:
          'Newest first, cursor-paginated with `first`/`after`; `offset`/`limit` and the `data`/`count` fields are kept for older callers.',
        querystring: UserAttributesListQuery,
        response: { 200: UserAttributesListResponse },
      },
      config: admin,
    },
    (r) => userAttributes.list(principalOf(r), r.query),
  );
  app.post(
    '/api/v1/user-attributes',
    {
      schema: {
        tags: ['User Attributes'],
        operationId: 'createUserAttribute',
        summary: 'Create user attribute',
        description:
          'Its value per user (or the default) appears at `serviceCloud.userAttributes.<name>` in every security context built for an account user: data-API tokens, dashboard widgets, chat sessions and notifications. 409 `user_attribute_exists` for a name taken.',
        body: UserAttributeCreateInput,
        response: { 200: UserAttribute },
      },
      config: admin,
    },
    (r) => userAttributes.create(principalOf(r), r.body),
  );
  app.put(
    '/api/v1/user-attributes/:id',
    {
      schema: {
        tags: ['User Attributes'],
        operationId: 'updateUserAttribute',
        summary: 'Update user attribute (its default, description and display name)',
        params: UserAttributeIdParams,
        body: UserAttributeUpdateInput,
        response: { 200: UserAttribute },
      },
      config: admin,
    },
    (r) => userAttributes.update(principalOf(r), r.params.id, r.body),
  );
  app.post(
    '/api/v1/user-attribute-values',
    {
      schema: {
        tags: ['User Attribute Values'],
        operationId: 'upsertUserAttributeValue',
        summary: "Upsert user attribute value; null removes the user's own value",
        body: UserAttributeValueCreateInput,
        response: { 200: UserAttributeValue },
      },
      config: admin,
    },
    (r) => userAttributes.upsertValue(principalOf(r), r.body),
  );
  app.get(
    '/api/v1/user-attribute-values/:userId',
    {
      schema: {
        tags: ['User Attribute Values'],
        operationId: 'getUserAttributeValues',
        summary: "Get user attribute values: every attribute, with the user's own value",
        params: UserIdParams,
        response: { 200: Type.Array(UserAttributeValue) },
      },
      config: admin,
    },
    (r) => userAttributes.values(principalOf(r), r.params.userId),
  );
};
