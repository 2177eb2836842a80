import { type RawBuilder, sql } from 'kysely';

/**
 * The SQL form of "only what the caller may view" for lists: an item is visible
 * when it sits in a folder the caller can view or is granted to the caller itself. `null`: a
 * tenant admin, who sees everything.
 */
export function visibleFilter(
  visibility: { folderIds: number[]; itemIds: number[] } | null,
  folderColumn: string,
  idColumn: string,
): RawBuilder<boolean> {
  if (visibility === null) return sql<boolean>`true`;
  const list = (ids: number[]) => sql.join(ids.length > 0 ? ids : [-1]);
  return sql<boolean>`(${sql.ref(folderColumn)} in (${list(visibility.folderIds)}) or ${sql.ref(idColumn)} in (${list(visibility.itemIds)}))`;
}
