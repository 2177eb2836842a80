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
const ModelErrorView = Type.Object({
  fileName: Type.Union([Type.String(), Type.Null()]),
  line: Type.Union([Type.Integer(), Type.Null()]),
  message: Type.String(),
});

export const UpdateFilesResponse = Type.Object({
  success: Type.Boolean(),
  valid: Type.Optional(
    Type.Boolean({
      description: "Whether the branch's model compiles with these files; always true on main",
    }),
  ),
  errors: Type.Optional(
    Type.Array(ModelErrorView, { description: "The branch's model errors after the write" }),
  ),
});

export const ValidateDraftBody = Type.Object({
  branchName: Type.Optional(BranchName),
  files: Type.Array(Type.Object({ path: FilePath, content: Type.String({ maxLength: 1_000_000 }) }), {
    maxItems: 500,
    description: "Unsaved contents, compiled over the branch's stored files",
  }),
});
export const ValidateDraftResponse = Type.Object({
  deploymentId: Type.Integer(),
  branchName: Type.String(),
  valid: Type.Boolean(),
  errors: Type.Array(ModelErrorView),
});

export const MergeToDefaultBody = Type.Object({
  branchName: BranchName,
  message: Type.Optional(Type.String({ maxLength: 1000 })),
  removeBranchAfterMerge: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
});
export const MergeResponse = Type.Object({ merged: Type.Boolean(), branchDeleted: Type.Boolean() });

const Identifier = Type.String({ minLength: 1, maxLength: 255 });
export const GenerateModelBody = Type.Object({
  tables: Type.Array(Type.Object({ schema: Identifier, name: Identifier }), { minItems: 1, maxItems: 200 }),
});
export const GenerateModelResponse = Type.Object({
  files: Type.Array(Type.Object({ path: Type.String(), content: Type.String() })),
});

export const ValidateResponse = Type.Object({
  deploymentId: Type.Integer(),
  branchName: Type.String(),
  mode: Type.Union([Type.Literal('production'), Type.Literal('dev_mode')]),
  valid: Type.Boolean(),
  cubesCount: Type.Integer(),
  errors: Type.Array(ModelErrorView),
});

export const DevModeBody = Type.Object({ branchName: Type.Optional(Type.Union([BranchName, Type.Null()])) });
export const DevModeResponse = Type.Object({
  active: Type.Boolean(),
  branchName: Type.Union([Type.String(), Type.Null()]),
  parentBranch: Type.Union([Type.String(), Type.Null()]),
});

export const Branch = Type.Object({
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
