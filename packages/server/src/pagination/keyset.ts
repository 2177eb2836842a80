import { type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { ValidationError } from '../errors/domain-errors.ts';
import type { CursorValue } from './cursor.ts';
import type { PageWindow } from './page.ts';

/**
 * Keyset pagination on a sort key other than the id (spec section 2.4; reports' `sortBy`): the
 * cursor holds every key of the last row, in the database's own text form so that timestamps keep
 * their full precision, and the next page starts strictly after that row in a total order
 * (the id breaks ties). Works with `pageWindow` and `toPage` like `pageById`.
 */
export interface SortKey {
  /** An SQL expression of the row, e.g. sql`f.name`. */
  expression: RawBuilder<unknown>;
  /** How a cursor value is read back: the expression's type. */
  cast: 'text' | 'integer' | 'timestamptz';
}

export interface KeysetRow {
  sort_keys: string[];
}

export function pageByKeys<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  window: PageWindow,
  keys: SortKey[],
  direction: 'asc' | 'desc',
): SelectQueryBuilder<DB, TB, O & KeysetRow> {
  const texts = sql.join(keys.map((k) => sql`(${k.expression})::text`));
  // biome-ignore lint/suspicious/noExplicitAny: the select list grows by one generic column.
  let q = (query as any).select(sql<string[]>`array[${texts}]`.as('sort_keys')) as SelectQueryBuilder<
    DB,
    TB,
    O & KeysetRow
  >;
  for (const k of keys) q = q.orderBy(k.expression, direction);
  q = q.limit(window.size + 1);
  if (window.mode === 'offset') return q.offset(window.offset);
  if (window.after) {
    const values = window.after;
    if (values.length !== keys.length || !keys.every((k, i) => readable(k.cast, values[i]))) {
      throw invalidCursor();
    }
    const left = sql.join(keys.map((k) => k.expression));
    const right = sql.join(keys.map((k, i) => sql`cast(${values[i]} as ${sql.raw(k.cast)})`));
    const op = sql.raw(direction === 'asc' ? '>' : '<');
    q = q.where(sql<boolean>`(${left}) ${op} (${right})`);
  }
  return q;
}

export function keysetCursor(row: KeysetRow): CursorValue[] {
  return row.sort_keys;
}

/** A crafted cursor must be a 400, never a cast error in the database. */
function readable(cast: SortKey['cast'], value: CursorValue): boolean {
  if (typeof value !== 'string' || value.length > 200) return false;
  if (cast === 'integer') return /^-?\d{1,9}$/.test(value);
  if (cast === 'timestamptz')
    return /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01]) ([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,6})?[+-]\d\d(:\d\d)?$/.test(
      value,
    );
  return true;
}

function invalidCursor() {
  return new ValidationError(
    'Invalid cursor',
    [{ field: 'querystring/after', message: 'is not a cursor this list issued' }],
    'invalid_cursor',
  );
}
