import { UserError } from '../errors.ts';
import type { CubeQuery, OrderSpec, QueryMember, TimeDimensionSpec } from './types.ts';

interface Columns {
  readonly measures: readonly QueryMember[];
  readonly dimensions: readonly QueryMember[];
  readonly timeDimensions: readonly TimeDimensionSpec[];
}

export function timeDimensionKey(td: TimeDimensionSpec): string {
  return td.granularity ? `${td.member.path}.${td.granularity}` : td.member.path;
}

/**
 * Cube's default order (BaseQuery.defaultOrder): the first time dimension with a granularity
 * ascending; else, with dimensions, the first measure descending; else the first dimension.
 */
export function defaultOrder(c: Columns, _ungrouped: boolean): OrderSpec[] {
  const td = c.timeDimensions.find((t) => t.granularity);
  if (td) return [{ id: timeDimensionKey(td), desc: false }];
  if (c.measures.length > 0 && c.dimensions.length > 0) return [{ id: c.measures[0].path, desc: true }];
  if (c.dimensions.length > 0) return [{ id: c.dimensions[0].path, desc: false }];
  return [];
}

/** Accepts `{"a.b": "asc"}` and `[["a.b", "desc"]]`; every ordered member must be selected. */
export function normalizeOrder(order: NonNullable<CubeQuery['order']>, c: Columns): OrderSpec[] {
  const entries: [unknown, unknown][] = Array.isArray(order)
    ? order.map((e) => (Array.isArray(e) ? [e[0], e[1]] : [e, 'asc']))
    : typeof order === 'object' && order !== null
      ? Object.entries(order)
      : [];
  if (!Array.isArray(order) && (typeof order !== 'object' || order === null)) {
    throw new UserError(`Invalid order: ${JSON.stringify(order)}`);
  }
  return entries.map(([id, dir]) => {
    if (dir !== 'asc' && dir !== 'desc')
      throw new UserError(`Invalid order direction for ${String(id)}: ${JSON.stringify(dir)}`);
    return { id: columnKey(String(id), c), desc: dir === 'desc' };
  });
}

function columnKey(id: string, c: Columns): string {
  if (c.measures.some((m) => m.path === id) || c.dimensions.some((d) => d.path === id)) return id;
  const td =
    c.timeDimensions.find((t) => timeDimensionKey(t) === id) ??
    c.timeDimensions.find((t) => t.member.path === id && t.granularity);
  if (td) return timeDimensionKey(td);
  throw new UserError(`Order member is not part of the query: ${id}`);
}
