import { Type } from 'typebox';

// The reference's Data Model group (`/build/api/v1/deployments/{deploymentId}/...`).

export const BranchName = Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._/-]+$' });
export const FilePath = Type.String({ minLength: 1, maxLength: 500 });

export const ListFilesQuery = Type.Object({
  branchName: Type.Optional(BranchName),
  withContent: Type.Optional(Type.Boolean()),
});
export const FilesResponse = Type.Object({
  items: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  data: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  pageInfo: Type.Null(),
});

export const UpdateFilesBody = Type.Object({
  branchName: Type.Optional(BranchName),
  files: Type.Array(Type.Object({ path: FilePath, content: Type.String({ maxLength: 1_000_000 }) }), {
    minItems: 1,
    maxItems: 500,
  }),
});
export const RemoveFilesBody = Type.Object({
  branchName: Type.Optional(BranchName),
  files: Type.Array(Type.Object({ path: FilePath }), { minItems: 1, maxItems: 500 }),
});
export const RenameFilesBody = Type.Object({
  branchName: Type.Optional(BranchName),
  files: Type.Array(Type.Object({ path: FilePath, newPath: FilePath }), { minItems: 1, maxItems: 500 }),
});

export const ValidateQuery = Type.Object({
  branchName: Type.Optional(BranchName),
  devMode: Type.Optional(Type.Boolean()),
});
export const ValidateResponse = Type.Object({
  deploymentId: Type.Integer(),
  branchName: Type.String(),
  mode: Type.Union([Type.Literal('production'), Type.Literal('dev_mode')]),
  valid: Type.Boolean(),
  cubesCount: Type.Integer(),
  errors: Type.Array(
    Type.Object({
      fileName: Type.Union([Type.String(), Type.Null()]),
      line: Type.Union([Type.Integer(), Type.Null()]),
      message: Type.String(),
    }),
  ),
});

export const DevModeBody = Type.Object({ branchName: Type.Optional(Type.Union([BranchName, Type.Null()])) });
export const DevModeResponse = Type.Object({
  active: Type.Boolean(),
  branchName: Type.Union([Type.String(), Type.Null()]),
  parentBranch: Type.Union([Type.String(), Type.Null()]),
});

const Branch = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  parentBranch: Type.Union([Type.String(), Type.Null()]),
  isStagingEnvironmentEnabled: Type.Boolean(),
  lastHash: Type.Union([Type.String(), Type.Null()]),
});
export const BranchesResponse = Type.Object({
  items: Type.Array(Branch),
  data: Type.Array(Branch),
  pageInfo: Type.Null(),
});
export const CreateBranchBody = Type.Object({
  name: BranchName,
  from: Type.Optional(Type.Union([BranchName, Type.Null()])),
  activate: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
});
export const RemoveBranchQuery = Type.Object({ branchName: BranchName });
