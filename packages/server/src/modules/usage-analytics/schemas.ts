import { Type } from 'typebox';

/** The reference's `UsageAnalyticsTokenResponse` (`POST /api/v1/usage-analytics/token`). */
export const UsageAnalyticsTokenResponse = Type.Object(
  {
    token: Type.String({
      description:
        "A short-lived data-API JWT for the account's Usage Analytics deployment. Send it as `Authorization: <token>` (a `Bearer ` prefix is accepted) on requests to `apiUrl`.",
    }),
    apiUrl: Type.String({
      description:
        "Base URL of the Usage Analytics deployment's data API (`{server}/data/0/cubejs-api/v1`): `load`, `meta`, `sql`, `dry-run`, `cubesql`.",
    }),
    deploymentId: Type.Integer({
      description:
        'Id of the Usage Analytics deployment the token was issued for: always 0, on each account.',
    }),
    expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description:
        'When the token expires (ISO-8601). Issue a new one before then: issuing is idempotent and cheap.',
    }),
  },
  { title: 'UsageAnalyticsTokenResponse' },
);
