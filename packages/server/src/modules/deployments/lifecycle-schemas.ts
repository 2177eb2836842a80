import { Type } from 'typebox';
import { creationSteps, DeploymentParams } from './schemas.ts';

/**
 * Shapes of the reference's Deployments operations beyond create/read/update/delete (settings,
 * onboarding steps, build status) and of its Deployment Creation group (issue 25 item 1).
 */
export const CreationStep = Type.Enum(creationSteps);

const nullableString = Type.Union([Type.String(), Type.Null()]);

export const DeploymentSettings = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    template: Type.Enum(['single', 'simpleCluster', 'multiCluster'] as const, {
      description: 'Tessera runs every deployment in its own process: `single`',
    }),
    cloudProvider: Type.Enum(['cubecloud', 'aws', 'gcp'] as const, {
      description: 'Tessera hosts its deployments itself: `cubecloud`',
    }),
    creationStep: CreationStep,
    creationMethod: Type.Union([Type.Enum(['upload', 'cubecloud', 'github', 'ssh'] as const), Type.Null()]),
    deployMode: Type.Union([Type.Enum(['git', 'cli'] as const), Type.Null()]),
    deploymentUrl: Type.String({ description: "Base URL of this deployment's data API" }),
    releaseChannel: Type.Enum(['latest', 'release'] as const),
    releaseChannelVersion: nullableString,
    deployBranchName: Type.String({ description: 'The branch queries read when a token names none' }),
    deployBranchReadOnly: Type.Boolean(),
    deployBranchMergeAllowed: Type.Boolean(),
    deployProjectRoot: Type.String(),
    isCubeSqlEnabled: Type.Boolean({ description: 'The SQL API (`/v1/cubesql`) answers' }),
    isSupportPreAggregations: Type.Boolean(),
    region: nullableString,
    customDomain: nullableString,
    autoDomain: nullableString,
    basePath: Type.String({ description: 'Data API base path under /data/{deploymentId}' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  {
    description:
      "Every setting of the deployment in one payload; secrets excluded (the data source's are in `GET /{deploymentId}` without their values, env variables under `/env-vars`)",
  },
);

export const AdvanceCreationStepBody = Type.Object(
  {
    creationStep: Type.Enum(
      creationSteps.filter((s) => s !== 'demo'),
      { description: '`demo` marks the seeded demo deployment only' },
    ),
  },
  { additionalProperties: false },
);

/** The reference's CreateDeploymentInput: its required fields, checked as the reference gives them. */
export const BuildCreateDeploymentBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
    cloudProvider: Type.Enum(['cubecloud', 'aws', 'gcp'] as const),
    isManaged: Type.Boolean(),
    region: Type.String({ maxLength: 100 }),
    targetPlatform: Type.String({ maxLength: 100 }),
    creationStep: Type.Enum(
      creationSteps.filter((s) => s !== 'demo'),
      { description: 'Where the new deployment starts its onboarding' },
    ),
    creationMethod: Type.Optional(
      Type.Union([Type.Enum(['upload', 'cubecloud', 'github', 'ssh'] as const), Type.Null()]),
    ),
    deployMode: Type.Optional(Type.Union([Type.Enum(['git', 'cli'] as const), Type.Null()])),
  },
  { additionalProperties: false },
);

export const BuildStatusQuery = Type.Object({
  branchName: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'Default: the default branch (main)' }),
  ),
});

export const BuildStatusParams = DeploymentParams;

const ModelError = Type.Object({
  fileName: nullableString,
  line: Type.Union([Type.Integer(), Type.Null()]),
  message: Type.String(),
});

export const BuildStatusResponse = Type.Object({
  deploymentId: Type.Integer(),
  branchName: Type.String(),
  mode: Type.Enum(['production', 'dev_mode'] as const),
  status: Type.Enum(['ok', 'error'] as const, {
    description: '`ok`: the branch model compiles; `error`: see `errors`, each with its file and line',
  }),
  errorText: Type.Union([Type.String(), Type.Null()], {
    description: 'The errors, one `file:line: message` a line',
  }),
  errors: Type.Array(ModelError),
  cubesCount: Type.Integer(),
  filesHash: Type.Union([Type.String(), Type.Null()], {
    description: "Hash of the branch's files (order-independent); null when it has none",
  }),
  lastHash: nullableString,
  buildJobId: Type.Null({ description: 'Models compile on demand: there are no build jobs' }),
  deploymentStatus: nullableString,
  updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When a file of the branch last changed; null when it has none',
  }),
});
