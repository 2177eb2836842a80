import type { FolderRow } from '../../db/schema.ts';

export type FolderWithOwner = FolderRow & {
  owner_email: string | null;
  owner_first_name: string | null;
  owner_picture: string | null;
};
