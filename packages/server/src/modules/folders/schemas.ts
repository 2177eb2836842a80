import { Type } from 'typebox';
import { CursorQuery } from '../../pagination/page.ts';
import { deploymentItemParams, Id } from '../deployments/schemas.ts';
import {
  FolderPathEntry,
  folderFilter,
  itemName,
  listWithCount,
  nullable,
  ResourceOwner,
  strict,
} from '../workspace/common.ts';

export const FolderParams = deploymentItemParams('folderId');

const position = Type.Integer({ minimum: 0, maximum: 1_000_000 });

/** The reference's CreateFolderInput. */
export const CreateFolderBody = Type.Object(
  {
    name: itemName,
    parentId: Type.Optional(nullable(Id)),
    position: Type.Optional(nullable(position)),
  },
  strict,
);

/** The reference's UpdateFolderInput: rename or reorder; moving is `POST /workspace/move`. */
export const UpdateFolderBody = Type.Object(
  {
    name: Type.Optional(nullable(itemName)),
    position: Type.Optional(nullable(position)),
  },
  strict,
);

export const FoldersListQuery = Type.Object({
  parentId: folderFilter('List the children of this folder; omit it (or send 0) for the workspace root'),
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

export const FoldersListResponse = listWithCount(
  Folder,
  'Deprecated: visible folders at this level, ignoring pagination',
);
