import { Type } from 'typebox';
import { connectionProblems } from '../../datasources/connection-test.ts';
import {
  dataSourceInputSchema,
  dataSourceTypes,
  dataSourceViewSchema,
} from '../../datasources/kinds/index.ts';
import { CursorQuery, OffsetPaginationSchema, OffsetQuery, PageInfoSchema } from '../../pagination/page.ts';

/** Shapes follow the reference's Deployments and Environments groups where the spec is silent. */
export { dataSourceTypes };
export const creationSteps = [
  'project',
  'upload',
  'schema',
  'github',
  'ssh',
  'databases',
  'ready',
  'demo',
] as const;
export const environmentTypes = ['production', 'staging', 'development'] as const;

/**
 * Pieces every route under `/api/v1/deployments/{deploymentId}` shares, defined once here: the
 * workspace, data-model and token routes import them. Ids are serial columns: positive 32-bit.
 */
export const int32 = { minimum: 1, maximum: 2147483647 } as const;
export const Id = Type.Integer(int32);
export const DeploymentParams = Type.Object({ deploymentId: Id });
/** The same parameters under the name the token routes import. */
export const DeploymentIdParams = DeploymentParams;

/** Path parameters of one item of a deployment: `{deploymentId, <idName>}`. */
export function deploymentItemParams<K extends string>(idName: K) {
  const item = { [idName]: Id } as { [P in K]: typeof Id };
  return Type.Object({ deploymentId: Id, ...item });
}

/** The body of writes that answer nothing but their success (deletes, file operations). */
export const Success = Type.Object({ success: Type.Boolean() });

const name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });

/** One member per warehouse kind (datasources/kinds/), each with its own fields. */
export const DataSourceInput = dataSourceInputSchema;

export const DataSourceView = dataSourceViewSchema;

const basePath = Type.String({
  pattern: '^(/[A-Za-z0-9_-]+)+$',
  maxLength: 200,
  description: 'Data API base path under /data/{deploymentId}',
});

export const CreateDeploymentBody = Type.Object(
  {
    name,
    dataSource: Type.Optional(DataSourceInput),
    basePath: Type.Optional(basePath),
  },
  { additionalProperties: false },
);

export const UpdateDeploymentBody = Type.Object(
  {
    name: Type.Optional(name),
    dataSource: Type.Optional(DataSourceInput),
    basePath: Type.Optional(basePath),
  },
  { additionalProperties: false },
);

export const ConnectionTestResult = Type.Object(
  {
    ok: Type.Boolean(),
    problem: Type.Union([Type.Enum(connectionProblems), Type.Null()], {
      description: 'What stopped the connection; null when it connected',
    }),
    message: Type.String({ description: 'What happened, in words a user can act on; never a secret' }),
    field: Type.Union([Type.String(), Type.Null()], { description: 'The data-source field to look at' }),
    durationMs: Type.Integer(),
  },
  { description: 'The outcome of connecting to a data source and running `SELECT 1`' },
);

export const Deployment = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  deploymentUrl: Type.String({ description: "Base URL of this deployment's data API" }),
  creationStep: Type.Enum(creationSteps, {
    description:
      '`ready` once its data source answers; `databases` while it does not (create, update or test it again)',
  }),
  dataSource: DataSourceView,
  connection: Type.Optional(ConnectionTestResult),
  basePath: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const DeploymentsListQuery = Type.Object({ ...CursorQuery, ...OffsetQuery });

export const DeploymentsListResponse = Type.Object({
  items: Type.Array(Deployment),
  pageInfo: PageInfoSchema,
  data: Type.Array(Deployment, { deprecated: true, description: 'Deprecated: use `items`' }),
  count: Type.Integer({
    deprecated: true,
    description: 'Deprecated: accessible deployments, ignoring pagination',
  }),
  pagination: OffsetPaginationSchema,
});

export const EnvironmentCredential = Type.Object({
  type: Type.Enum(['rest', 'sql'] as const),
  version: Type.Integer(),
  url: Type.Union([Type.String(), Type.Null()]),
  host: Type.Union([Type.String(), Type.Null()]),
  port: Type.Union([Type.Integer(), Type.Null()]),
  database: Type.Union([Type.String(), Type.Null()]),
});

export const Environment = Type.Object({
  id: Type.String(),
  type: Type.Enum(environmentTypes),
  branch: Type.Union([Type.String(), Type.Null()]),
  user: Type.Union([Type.String(), Type.Null()]),
  api_credentials: Type.Array(EnvironmentCredential),
});

export const EnvironmentsListQuery = Type.Object({
  type: Type.Optional(Type.Enum(environmentTypes)),
  ...CursorQuery,
  ...OffsetQuery,
});

export const EnvironmentsListResponse = Type.Object({
  items: Type.Array(Environment),
  pageInfo: PageInfoSchema,
  data: Type.Array(Environment, { deprecated: true }),
  pagination: OffsetPaginationSchema,
});

/** A column as the data source's catalogue describes it. */
const IntrospectedColumn = Type.Object({
  name: Type.String(),
  type: Type.String({ description: "The engine's own type name" }),
  nullable: Type.Boolean(),
  primaryKey: Type.Boolean(),
});

const IntrospectedTable = Type.Object({
  schema: Type.String(),
  name: Type.String(),
  columns: Type.Array(IntrospectedColumn),
  foreignKeys: Type.Array(
    Type.Object({
      columns: Type.Array(Type.String()),
      referencedSchema: Type.String(),
      referencedTable: Type.String(),
      referencedColumns: Type.Array(Type.String()),
    }),
  ),
});

export const DataSourceTablesResponse = Type.Object({
  schemas: Type.Array(Type.Object({ name: Type.String(), tables: Type.Array(IntrospectedTable) })),
});
