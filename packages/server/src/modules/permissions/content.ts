/** What a content permission names: its target and its grantee (migration 0015). */

export const contentTypes = ['FOLDER', 'WORKBOOK', 'REPORT'] as const;

export type ContentType = (typeof contentTypes)[number];

export interface ContentTarget {
  type: ContentType;
  id: number;
}

/** Exactly one of these (migration 0015 added the embed user and the embed tenant group). */
export interface Grantee {
  userId?: number;
  groupId?: number;
  embedUserId?: number;
  embedGroupId?: number;
}
