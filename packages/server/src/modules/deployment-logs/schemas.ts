import { Type } from 'typebox';
import { maxPageSize, PageInfoSchema } from '../../pagination/page.ts';

/** The reference's DeploymentLogsQuerySource: the default branch, or any other (development). */
export const logSources = ['production', 'dev'] as const;
export const logContainers = ['INIT', 'MAIN', 'cubejs-server', 'vector', 'api-proxy'] as const;

export const DeploymentLogsQuery = Type.Object({
  source: Type.Optional(
    Type.Enum(logSources, {
      description:
        '`production`: lines about the default branch; `dev`: about any other branch. Absent: both',
    }),
  ),
  pod: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Only the lines of this replica' }),
  ),
  container: Type.Optional(
    Type.Enum(logContainers, {
      description: "Every line is the API server's (`cubejs-server`): other containers have none",
    }),
  ),
  first: Type.Optional(
    Type.Integer({ minimum: 1, maximum: maxPageSize, description: 'Page size (default 100)' }),
  ),
  after: Type.Optional(
    Type.String({ maxLength: 512, description: 'Opaque cursor: the `endCursor` of the previous page' }),
  ),
});

export const DeploymentLogLine = Type.Object({
  pod: Type.String({ description: 'The replica that wrote the line' }),
  date: Type.String({ format: 'date-time' }),
  message: Type.String(),
  source: Type.Enum(logSources),
  kind: Type.Enum(['query', 'build'] as const, {
    description: '`query`: a data-API query ran or was refused; `build`: a model was compiled',
  }),
  level: Type.Enum(['info', 'error'] as const),
  branchName: Type.String(),
  details: Type.Record(Type.String(), Type.Unknown(), {
    description:
      'Structured fields: duration, rows, member names, error code. Never SQL text, filter values or any bound parameter',
  }),
});

export const DeploymentLogsResponse = Type.Object({
  items: Type.Array(DeploymentLogLine, { description: 'Newest first' }),
  pageInfo: PageInfoSchema,
});
