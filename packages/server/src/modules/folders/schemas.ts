import { Type } from 'typebox';
import { CursorQuery, PageInfoSchema } from '../../pagination/page.ts';
import { FolderPathEntry, int32, itemName, ResourceOwner } from '../workspace/common.ts';

export const FolderParams = Type.Object({
  deploymentId: Type.Integer(int32),
  folderId: Type.Integer(int32),
});

const position = Type.Integer({ minimum: 0, maximum: 1_000_000 });

/** The reference's CreateFolderInput. */
export const CreateFolderBody = Type.Object(
  {
    name: itemName,
    parentId: Type.Optional(Type.Union([Type.Integer(int32), Type.Null()])),
    position: Type.Optional(Type.Union([position, Type.Null()])),
  },
  { additionalProperties: false },
);

/** The reference's UpdateFolderInput: rename or reorder; moving is `POST /workspace/move`. */
export const UpdateFolderBody = Type.Object(
  {
    name: Type.Optional(Type.Union([itemName, Type.Null()])),
    position: Type.Optional(Type.Union([position, Type.Null()])),
  },
  { additionalProperties: false },
);

export const FoldersListQuery = Type.Object({
  parentId: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 2147483647,
      description: 'List the children of this folder; omit it (or send 0) for the workspace root',
    }),
  ),
  ...CursorQuery,
});

export const Folder = Type.Object({
  id: Type.Integer(),
  deploymentId: Type.Integer(),
  name: Type.String(),
  type: Type.Literal('FOLDER'),
  parentId: Type.Union([Type.Integer(), Type.Null()]),
  position: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  createdBy: Type.Union([Type.Integer(), Type.Null()]),
  updatedBy: Type.Union([Type.Integer(), Type.Null()]),
  user: Type.Union([ResourceOwner, Type.Null()]),
  folderPath: Type.Array(FolderPathEntry),
});

/** Spec 2.4 and 9 (0.1.0): `items`/`pageInfo`, with the deprecated `data` and `count` still filled. */
export const FoldersListResponse = Type.Object({
  items: Type.Array(Folder),
  pageInfo: PageInfoSchema,
  data: Type.Array(Folder, { deprecated: true, description: 'Deprecated: use `items`' }),
  count: Type.Integer({
    deprecated: true,
    description: 'Deprecated: visible folders at this level, ignoring pagination',
  }),
});
