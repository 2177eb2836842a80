import { Type } from 'typebox';
import { strict } from '../../workspace/common.ts';

export const audienceTypes = ['default', 'custom'] as const;

const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()]));

const name = Type.String({ pattern: '^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$', maxLength: 100 });
const subFormat = Type.String({
  pattern: '^(?:[A-Za-z0-9:_-]|\\{(?:deployment_id|component|region)\\})+$',
  maxLength: 200,
  description:
    "The token's `sub`, with `{deployment_id}`, `{component}` (`data-api`) and `{region}` filled in; default `deployment:{deployment_id}`",
});
const targetEnvVar = Type.String({
  pattern: '^[A-Z_][A-Z0-9_]*$',
  maxLength: 128,
  description: 'The env variable of a deployment that carries the token (for a data source setting `$NAME`)',
});
const customClaims = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
  description:
    'Claims added to every token; the registered ones (`iss`, `sub`, `aud`, `exp`, `iat`, `nbf`, `jti`, `tenant`) cannot be overridden',
});
const audienceType = Type.Union([Type.Literal(audienceTypes[0]), Type.Literal(audienceTypes[1])], {
  description: '`default`: the issuer URL is the audience; `custom`: `customAudience`',
});

export const OidcTokenConfigIdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) });

/** The reference's OidcTokenConfig. */
export const OidcTokenConfig = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  audienceType: Type.String(),
  audience: Type.String({ description: 'The `aud` of the tokens, as resolved from the audience type' }),
  subFormat: Type.Union([Type.String(), Type.Null()]),
  customClaims: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  targetEnvVar: Type.Union([Type.String(), Type.Null()]),
  isEnabled: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

/** The reference's CreateOidcTokenConfigInput. */
export const CreateOidcTokenConfigInput = Type.Object(
  {
    audienceType,
    customAudience: nullable(Type.String({ minLength: 1, maxLength: 500 })),
    customClaims: Type.Optional(customClaims),
    isEnabled: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    name: nullable(name),
    subFormat: nullable(subFormat),
    targetEnvVar: nullable(targetEnvVar),
  },
  strict,
);

/** The reference's UpdateOidcTokenConfigInput: fields sent replace, fields left out stay. */
export const UpdateOidcTokenConfigInput = Type.Object(
  {
    audienceType: Type.Optional(audienceType),
    customAudience: nullable(Type.String({ minLength: 1, maxLength: 500 })),
    customClaims: Type.Optional(customClaims),
    isEnabled: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    name: nullable(name),
    subFormat: nullable(subFormat),
    targetEnvVar: nullable(targetEnvVar),
  },
  strict,
);

export const MintTokenInput = Type.Object(
  { deploymentId: Type.Integer({ minimum: 1, maximum: 2147483647 }) },
  strict,
);

export const MintedToken = Type.Object({
  token: Type.String({ description: 'A JWT (ES256) signed by a key of `/.well-known/jwks.json`' }),
  expiresAt: Type.String({ format: 'date-time' }),
});

export const DeletedAnswer = Type.Object({ id: Type.Integer(), deleted: Type.Literal(true) });
