import { Type } from 'typebox';

/** Reference: `CreateDeploymentTokenInput` / `DeploymentTokenResponse` (brand word -> `service`). */
export const CreateDeploymentTokenBody = Type.Object(
  {
    expiresIn: Type.Optional(
      Type.Union([Type.Integer({ minimum: 60, maximum: 86_400 }), Type.Null()], {
        description: 'Token lifetime in seconds, 60..86400; default 86400 (24 hours)',
      }),
    ),
    securityContext: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            'Claims of the token, i.e. the security context (`serviceCloud.groups`, `serviceCloud.userAttributes`, ...)',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export const DeploymentTokenResponse = Type.Object({
  serviceApiToken: Type.String({ description: 'A data-API JWT, sent bare in Authorization' }),
});

export const RotateApiSecretResponse = Type.Object({ success: Type.Boolean() });
