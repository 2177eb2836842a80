import { Type } from 'typebox';
import { strict } from '../workspace/common.ts';

const id = Type.Integer({ minimum: 1, maximum: 2147483647 });
const url = (description: string) =>
  Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048, description });
const name = Type.String({ minLength: 1, maxLength: 200 });
const type = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_.:-]+$',
  description: 'What the provider is (`generic`, `snowflake`, `github`, ...): a label, shown to users',
});
const scopes = Type.Array(
  Type.String({ minLength: 1, maxLength: 200, pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' }),
  {
    maxItems: 50,
    description: 'Scopes requested at authorization (RFC 6749 section 3.3)',
  },
);
const config = Type.Object(
  {
    revocationUrl: Type.Optional(
      url("The provider's token revocation endpoint (RFC 7009); revoking a connection calls it"),
    ),
    issuer: Type.Optional(
      Type.String({
        maxLength: 2048,
        description:
          "The provider's issuer identifier, checked against the `iss` of authorization responses (RFC 9207); default the authorization URL's origin",
      }),
    ),
  },
  {
    additionalProperties: true,
    description:
      'Provider settings beyond the endpoints: `revocationUrl`, `issuer`; other keys are kept as given',
  },
);

export const IntegrationIdParams = Type.Object({ id });
export const UserTokenParams = Type.Object({ integrationId: id });

/** The reference's OAuthIntegration; the client secret is write-only and never read back. */
export const OAuthIntegration = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  type: Type.String(),
  authUrl: Type.String({ format: 'uri' }),
  tokenUrl: Type.String({ format: 'uri' }),
  clientId: Type.String(),
  redirectUri: Type.String({ format: 'uri' }),
  scopes: Type.Union([Type.Array(Type.String()), Type.Null()]),
  config: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

const integrationFields = {
  name,
  type,
  authUrl: url('The authorization endpoint (RFC 6749 section 3.1)'),
  tokenUrl: url('The token endpoint (RFC 6749 section 3.2)'),
  clientId: Type.String({ minLength: 1, maxLength: 500 }),
  redirectUri: url(
    "Where the provider sends the user back: this server's `/api/v1/oauth/callback`, registered with the provider",
  ),
  scopes: Type.Optional(scopes),
  config: Type.Optional(config),
};

/** The reference's CreateOAuthIntegrationInput. */
export const CreateOAuthIntegrationInput = Type.Object(
  {
    ...integrationFields,
    clientSecret: Type.String({
      minLength: 1,
      maxLength: 4096,
      description: 'Sealed at rest, never returned',
    }),
  },
  strict,
);

/** The reference's UpdateOAuthIntegrationInput: the whole integration; a null or absent secret keeps it. */
export const UpdateOAuthIntegrationInput = Type.Object(
  {
    ...integrationFields,
    clientSecret: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 4096 }), Type.Null()], {
        description: 'A new client secret; null or absent keeps the stored one',
      }),
    ),
  },
  strict,
);

export const tokenStatuses = ['active', 'expired', 'error'] as const;

/** The reference's UserOAuthToken: the connection, never the tokens themselves. */
export const UserOAuthToken = Type.Object({
  id: Type.Integer(),
  userId: Type.Integer(),
  integrationId: Type.Integer(),
  status: Type.Union(
    [Type.Literal(tokenStatuses[0]), Type.Literal(tokenStatuses[1]), Type.Literal(tokenStatuses[2])],
    {
      description:
        '`active`: usable (refreshed before it expires); `expired`: past its expiry with no way to refresh; `error`: the last refresh failed (`lastError`)',
    },
  ),
  accessTokenExpiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  refreshTokenExpiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const InitiateAnswer = Type.Object({
  authorizationUrl: Type.String({
    format: 'uri',
    description: "Send the user's browser here; the provider returns it to the integration's redirect URI",
  }),
  expiresAt: Type.String({ format: 'date-time', description: 'The flow must finish before this time' }),
});

export const RevokeAnswer = Type.Object({
  integrationId: Type.Integer(),
  revoked: Type.Literal(true),
  providerRevoked: Type.Boolean({
    description:
      'Whether the provider confirmed the revocation (RFC 7009); false when it has no revocation endpoint',
  }),
});

export const DeletedAnswer = Type.Object({ id: Type.Integer(), deleted: Type.Literal(true) });

export const CallbackQuery = Type.Object({
  state: Type.Optional(Type.String({ maxLength: 512 })),
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  error: Type.Optional(Type.String({ maxLength: 200 })),
  error_description: Type.Optional(Type.String({ maxLength: 2000 })),
  error_uri: Type.Optional(Type.String({ maxLength: 2048 })),
  iss: Type.Optional(Type.String({ maxLength: 2048 })),
  session_state: Type.Optional(Type.String({ maxLength: 2048 })),
  scope: Type.Optional(Type.String({ maxLength: 4096 })),
});
