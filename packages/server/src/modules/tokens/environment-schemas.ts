import { Type } from 'typebox';
import { CursorQuery, OffsetPaginationSchema, OffsetQuery, PageInfoSchema } from '../../pagination/page.ts';
import { BRANCH_TOKEN_MAX_SECONDS } from '../data/branch.ts';
import { Id } from '../deployments/schemas.ts';
import { nullable } from '../workspace/common.ts';

/**
 * The reference's API scopes Tessera serves, and the data-API operations each opens
 * (`/data/{id}{basePath}/v1/...`): `meta` the model's metadata, `data` queries (REST `load`, and
 * `sql` and `dry-run`, which plan one), `sql` the SQL API (`cubesql`). GraphQL and jobs are not served.
 */
export const tokenScopes = ['meta', 'data', 'sql'] as const;
export const scopeOperations = {
  meta: ['meta'],
  data: ['load', 'sql', 'dry-run'],
  sql: ['cubesql'],
} as const satisfies Record<(typeof tokenScopes)[number], readonly string[]>;

export const EnvironmentTokenParams = Type.Object({ deploymentId: Id, environmentId: Id });

/** Reference: `CreateDeploymentEnvironmentTokenInput`. */
export const CreateEnvironmentTokenBody = Type.Object(
  {
    expires_in: Type.Optional(
      nullable(
        Type.Integer({
          minimum: 1,
          maximum: BRANCH_TOKEN_MAX_SECONDS,
          description: `Lifetime in seconds, at most ${BRANCH_TOKEN_MAX_SECONDS}; default ${BRANCH_TOKEN_MAX_SECONDS}`,
        }),
      ),
    ),
    scopes: Type.Optional(
      nullable(
        Type.Array(Type.Enum(tokenScopes), {
          minItems: 1,
          uniqueItems: true,
          description:
            'The data-API operations the token may call: `meta` (`/v1/meta`), `data` (`/v1/load`, `/v1/sql`, ' +
            '`/v1/dry-run`), `sql` (`/v1/cubesql`); omitted or null: all. A signed claim, checked on every request (403)',
        }),
      ),
    ),
    security_context: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'The security context the token carries. `tessera` and the registered claims (`exp`, `iat`, `nbf`) are ' +
          "the server's (400)",
      },
    ),
  },
  { additionalProperties: false },
);

/** Reference: `DeploymentEnvironmentToken`, plus the environment's `branch` and the token's `scopes`. */
export const EnvironmentToken = Type.Object({
  token: Type.String({
    description:
      'The data-API JWT, sent bare in Authorization. Only the response that issues it carries it whole; a list ' +
      'shows `…` and the last characters of its signature (Tessera keeps tokens only as hashes)',
  }),
  security_context: Type.Object({}, { additionalProperties: true }),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
  branch: Type.String({ description: "The environment's model branch, which the token reads" }),
  scopes: nullable(Type.Array(Type.String())),
});

export const EnvironmentTokenResponse = Type.Object({ data: EnvironmentToken });

export const EnvironmentTokensQuery = Type.Object({ ...OffsetQuery, ...CursorQuery });

export const EnvironmentTokensListResponse = Type.Object({
  items: Type.Array(EnvironmentToken),
  data: Type.Array(EnvironmentToken, { deprecated: true, description: 'Deprecated: use `items` instead' }),
  pageInfo: PageInfoSchema,
  pagination: OffsetPaginationSchema,
});
