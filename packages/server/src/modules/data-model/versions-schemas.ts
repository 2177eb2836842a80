import { Type } from 'typebox';
import { maxPageSize, PageInfoSchema } from '../../pagination/page.ts';

export const DeploymentVersionsQuery = Type.Object({
  first: Type.Optional(
    Type.Integer({ minimum: 1, maximum: maxPageSize, description: 'Page size (default 50)' }),
  ),
  after: Type.Optional(
    Type.String({ maxLength: 512, description: 'Opaque cursor: the `endCursor` of the previous page' }),
  ),
});

export const DeploymentVersion = Type.Object({
  id: Type.Integer(),
  version: Type.String({ description: '`v1` for the first version of the model, counting up' }),
  releaseChannelVersion: Type.String({ description: 'The same as `version`' }),
  releaseChannel: Type.Enum(['latest', 'release'] as const),
  isLatestInChannel: Type.Boolean({ description: 'The newest version' }),
  isCurrent: Type.Boolean({
    description: 'The newest version, and the default branch still holds its files',
  }),
  filesHash: Type.String({ description: "Order-independent hash of the default branch's files" }),
  files: Type.Array(Type.String(), { description: 'The paths of the model files' }),
  action: Type.String({
    description:
      'What made it: `data_model.write_files`, `data_model.merge_to_default`, `data_model.upload`, …',
  }),
  fromBranch: Type.Union([Type.String(), Type.Null()], { description: 'The branch merged, for a merge' }),
  createdAt: Type.String({ format: 'date-time' }),
  createdBy: Type.Union([
    Type.Object({
      id: Type.Integer(),
      email: Type.String(),
      firstName: Type.Union([Type.String(), Type.Null()]),
    }),
    Type.Null(),
  ]),
});

export const DeploymentVersionsResponse = Type.Object({
  items: Type.Array(DeploymentVersion, { description: 'Newest first' }),
  pageInfo: PageInfoSchema,
});
