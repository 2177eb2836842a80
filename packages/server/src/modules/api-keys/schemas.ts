import { Type } from 'typebox';
import { credentialKinds } from '../../db/schema.ts';
import { CursorQuery, PageInfoSchema } from '../../pagination/page.ts';

export const ApiKeyIdParams = Type.Object({ apiKeyId: Type.Integer({ minimum: 1, maximum: 2147483647 }) });

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
    kind: Type.Optional(
      Type.Enum(credentialKinds, {
        description: '`api` for the management API (default), `scim` for provisioning',
      }),
    ),
    deploymentIds: Type.Optional(
      Type.Union(
        [
          Type.Array(Type.Integer({ minimum: 1, maximum: 2147483647 }), {
            minItems: 1,
            maxItems: 1000,
            uniqueItems: true,
          }),
          Type.Null(),
        ],
        {
          description: 'Deployments the key may act on; omitted or null for all (spec section 5 rule 1)',
        },
      ),
    ),
    expiresAt: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
    userId: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2147483647,
        description: 'Owner; admins only, default the caller',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ApiKey = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  kind: Type.Enum(credentialKinds),
  prefix: Type.String({ description: 'First characters of the key, to recognise it' }),
  userId: Type.Integer(),
  deploymentIds: Type.Union([Type.Array(Type.Integer()), Type.Null()]),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});

export const CreatedApiKey = Type.Intersect([
  ApiKey,
  Type.Object({ key: Type.String({ description: 'The secret; shown only in this response' }) }),
]);

export const ApiKeysListQuery = Type.Object({
  ...CursorQuery,
  includeRevoked: Type.Optional(Type.Boolean()),
});

export const ApiKeysListResponse = Type.Object({ items: Type.Array(ApiKey), pageInfo: PageInfoSchema });
