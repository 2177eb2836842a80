import type { Client as FetchClient } from 'openapi-fetch';
import { unwrap } from './errors.ts';
import type { paths } from './generated/schema.ts';
import type { Page, PagedPath, PageItem, RequestOptionsOf } from './types.ts';

interface QueryInit {
  params?: { query?: Record<string, unknown>; path?: Record<string, unknown> };
}

/**
 * Walks a cursor-paged list (spec 2.4: `first` and `after` in, `items` and `pageInfo` out), one
 * request per page, and yields its items. Stops when `hasNextPage` is false, or when a page
 * claims a next page without giving a cursor to reach it.
 */
export async function* paginate<P extends PagedPath>(
  client: FetchClient<paths>,
  path: P,
  init: RequestOptionsOf<P, 'get'>,
): AsyncGenerator<PageItem<P>, void> {
  const base = init as QueryInit;
  let after = base.params?.query?.after as string | undefined;
  const get = client.GET as (path: string, init: unknown) => ReturnType<FetchClient<paths>['GET']>;
  for (;;) {
    const query = { ...base.params?.query, ...(after === undefined ? {} : { after }) };
    const page = unwrap(await get(path, { ...init, params: { ...base.params, query } })) as unknown as Page<
      PageItem<P>
    >;
    yield* page.items;
    if (!page.pageInfo.hasNextPage || !page.pageInfo.endCursor) return;
    after = page.pageInfo.endCursor;
  }
}
