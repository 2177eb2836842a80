import { type SelectQueryBuilder, sql } from 'kysely';
import { Type } from 'typebox';
import { ValidationError } from '../errors/domain-errors.ts';
import { type CursorValue, decodeCursor, encodeCursor } from './cursor.ts';

/** One pagination mechanism for every list (spec section 2.4): cursor with `first`/`after`. */
export const defaultPageSize = 50;
export const maxPageSize = 1000;

export const CursorQuery = {
  first: Type.Optional(
    Type.Integer({ minimum: 1, maximum: maxPageSize, description: 'Page size for cursor pagination' }),
  ),
  after: Type.Optional(
    Type.String({ maxLength: 512, description: 'Opaque cursor: the `endCursor` of the previous page' }),
  ),
};

/** `offset`/`limit`, accepted where the reference lists them (deployments, environments). */
export const OffsetQuery = {
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  limit: Type.Optional(Type.Integer({ minimum: 0, maximum: maxPageSize })),
};

export const PageInfoSchema = Type.Object({
  hasNextPage: Type.Boolean(),
  hasPreviousPage: Type.Boolean(),
  startCursor: Type.Union([Type.String(), Type.Null()]),
  endCursor: Type.Union([Type.String(), Type.Null()]),
});

export const OffsetPaginationSchema = Type.Object({
  total: Type.Integer({ minimum: 0 }),
  offset: Type.Integer({ minimum: 0 }),
  limit: Type.Integer({ minimum: 0 }),
});

export interface PageQuery {
  first?: number;
  after?: string;
  offset?: number;
  limit?: number;
}

/** What a repository needs to fetch one page: keyset (`after`) or offset, and how many rows. */
export type PageWindow =
  | { mode: 'cursor'; size: number; after: CursorValue[] | null }
  | { mode: 'offset'; size: number; offset: number };

export function pageWindow(query: PageQuery, cursorArity: number): PageWindow {
  const usesCursor = query.first !== undefined || query.after !== undefined;
  const usesOffset = query.offset !== undefined || query.limit !== undefined;
  if (usesCursor && usesOffset) {
    throw new ValidationError('Use either first/after or offset/limit, not both', [
      { field: 'querystring', message: 'first/after cannot be combined with offset/limit' },
    ]);
  }
  if (usesOffset) {
    return { mode: 'offset', size: query.limit ?? defaultPageSize, offset: query.offset ?? 0 };
  }
  return {
    mode: 'cursor',
    size: query.first ?? defaultPageSize,
    after: query.after === undefined ? null : decodeCursor(query.after, cursorArity),
  };
}

export interface Page<T> {
  items: T[];
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
}

/** Builds the page from `size + 1` fetched rows: the extra row only tells that a next page exists. */
export function toPage<Row, Item>(
  rows: Row[],
  window: PageWindow,
  cursorOf: (row: Row) => CursorValue[],
  toItem: (row: Row) => Item,
): Page<Item> {
  const hasNextPage = rows.length > window.size;
  const pageRows = hasNextPage ? rows.slice(0, window.size) : rows;
  const first = pageRows[0];
  const last = pageRows[pageRows.length - 1];
  return {
    items: pageRows.map(toItem),
    pageInfo: {
      hasNextPage,
      hasPreviousPage: window.mode === 'cursor' ? window.after !== null : window.offset > 0,
      startCursor: first === undefined ? null : encodeCursor(cursorOf(first)),
      endCursor: last === undefined ? null : encodeCursor(cursorOf(last)),
    },
  };
}

export function cursorId(values: CursorValue[]): number {
  const id = values[values.length - 1];
  if (typeof id !== 'number' || !Number.isInteger(id)) {
    throw new ValidationError(
      'Invalid cursor',
      [{ field: 'querystring/after', message: 'is not a cursor this list issued' }],
      'invalid_cursor',
    );
  }
  return id;
}

/**
 * Applies a page window to a query ordered by `idColumn` ascending: keyset (`id > cursor`) or
 * offset, fetching one row more than the page so that `toPage` can tell whether a next page exists.
 */
export function pageById<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  window: PageWindow,
  idColumn: string,
): SelectQueryBuilder<DB, TB, O> {
  const limited = query.limit(window.size + 1);
  if (window.mode === 'offset') return limited.offset(window.offset);
  if (window.after) return limited.where(sql.ref(idColumn), '>', cursorId(window.after));
  return limited;
}
