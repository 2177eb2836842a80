/** A list page's cursor (spec: `pageInfo` of a paged answer). */
export interface PageInfo {
  hasNextPage: boolean;
  endCursor?: string | null;
}

/**
 * The "Show more" list item under the last page read of a paged list: shown only when the server
 * says there is a next page, it asks for the page after `pageInfo.endCursor`.
 */
export function ShowMoreItem({
  pageInfo,
  onMore,
  className,
}: {
  pageInfo: PageInfo;
  onMore: (after: string) => void;
  /** Extra classes of the item (next to `load-more`). */
  className?: string;
}) {
  const { endCursor } = pageInfo;
  if (!pageInfo.hasNextPage || !endCursor) return null;
  return (
    <li className={className ? `${className} load-more` : 'load-more'}>
      <button type="button" className="button button-secondary" onClick={() => onMore(endCursor)}>
        Show more
      </button>
    </li>
  );
}
