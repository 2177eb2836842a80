import { Type } from 'typebox';
import { BRANCH_TOKEN_MAX_SECONDS, MAIN_BRANCH, TESSERA_CLAIMS } from '../data/branch.ts';
import { BranchName } from '../data-model/schemas.ts';

/** Reference: `CreateDeploymentTokenInput` / `DeploymentTokenResponse` (brand word -> `service`). */
export const CreateDeploymentTokenBody = Type.Object(
  {
    expiresIn: Type.Optional(
      Type.Union([Type.Integer({ minimum: 60, maximum: 86_400 }), Type.Null()], {
        description: `Token lifetime in seconds, 60..86400; default 86400 (24 hours). A branch token lives at most ${BRANCH_TOKEN_MAX_SECONDS} s, its default`,
      }),
    ),
    securityContext: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: `Claims of the token, i.e. the security context (\`serviceCloud.groups\`, \`serviceCloud.userAttributes\`, ...). \`${TESSERA_CLAIMS}\` and the registered claims (\`exp\`, \`iat\`, \`nbf\`) are set by the server. \`serviceCloud.userAttributes\` also carries the calling user's user attributes (their values, else the defaults); those named here win`,
        },
      ),
    ),
    branch: Type.Optional({
      ...BranchName,
      description:
        `Data-model branch the token reads (a signed \`${TESSERA_CLAIMS}.branch\` claim); default and \`${MAIN_BRANCH}\`: the production branch. ` +
        'The branch must exist on the deployment, and only developers and admins may ask for one. The data API never takes the branch from a request header.',
    }),
  },
  { additionalProperties: false },
);

export const DeploymentTokenResponse = Type.Object({
  serviceApiToken: Type.String({ description: 'A data-API JWT, sent bare in Authorization' }),
});

export const RotateApiSecretResponse = Type.Object({ success: Type.Boolean() });
