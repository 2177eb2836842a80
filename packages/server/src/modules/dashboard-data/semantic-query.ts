import type { CubeQuery, QueryFilter } from '@tessera/semantic';
import type { Static } from 'typebox';
import type { CodeWithStatus } from '../../errors/catalogue.ts';
import { ValidationError } from '../../errors/domain-errors.ts';
import type { DashboardFilter, TimeGrain } from './schemas.ts';

export type Filter = Static<typeof DashboardFilter>;
export type Grain = Static<typeof TimeGrain>;

/** Cube's operators that compare text exactly; the `contains` family is case-insensitive in Cube. */
const exact = new Set(['equals', 'notEquals', 'in', 'notIn']);
const fuzzy = new Set(['contains', 'notContains', 'startsWith', 'notStartsWith', 'endsWith', 'notEndsWith']);
const noValues = new Set(['set', 'notSet']);
const ranges = new Set(['inDateRange', 'notInDateRange']);

export const filterValues = (f: Filter): string[] => f.values ?? (f.value == null ? [] : [f.value]);

function bad(field: string, message: string, code: CodeWithStatus<400> = 'invalid_dashboard_filter') {
  return new ValidationError(message, [{ field, message }], code);
}

/**
 * A dashboard filter (spec 2.5 shape) as a Cube filter. `operator` defaults to `equals`.
 * `caseSensitive` must agree with the operator's Cube semantics (exact operators are
 * case-sensitive, the contains family is not) rather than being silently ignored.
 * `startInclusive`/`endInclusive` false on `inDateRange` turn the range into afterDate/beforeDate.
 */
export function cubeFilter(f: Filter, index: number): QueryFilter {
  const field = `body/filters/${index}`;
  const operator: string = f.operator ?? 'equals';
  const values = filterValues(f);
  if (noValues.has(operator)) return { member: f.member, operator };
  if (values.length === 0) throw bad(`${field}/value`, `Filter on ${f.member} needs a value for ${operator}`);
  if (f.caseSensitive === false && exact.has(operator))
    throw bad(`${field}/caseSensitive`, `${operator} is case-sensitive; use contains for ${f.member}`);
  if (f.caseSensitive === true && fuzzy.has(operator))
    throw bad(`${field}/caseSensitive`, `${operator} is case-insensitive in the data API (${f.member})`);
  if (ranges.has(operator)) {
    if (values.length !== 2)
      throw bad(`${field}/values`, `${operator} on ${f.member} needs two values: start and end`);
    const [start, end] = values;
    if (operator === 'inDateRange' && (f.startInclusive === false || f.endInclusive === false)) {
      return {
        and: [
          {
            member: f.member,
            operator: f.startInclusive === false ? 'afterDate' : 'afterOrOnDate',
            values: [start],
          },
          {
            member: f.member,
            operator: f.endInclusive === false ? 'beforeDate' : 'beforeOrOnDate',
            values: [end],
          },
        ],
      };
    }
  }
  return { member: f.member, operator, values };
}

/**
 * The widget's own query with the viewer's dashboard state applied:
 * - filters are ANDed to the report's filters (Cube ANDs top-level filters), only on members the
 *   model has for this viewer; an unknown or hidden member is a 400 naming it;
 * - a time grain replaces the granularity of the widget's time dimension on that member; a grain
 *   on a member the widget does not group by leaves the widget alone (one dashboard-wide control
 *   serves every widget), but the member must still exist;
 * - limit/offset page the rows; `total` (default true) asks for the row count behind the page, a
 *   second statement on the warehouse: a caller that never shows the count leaves it out.
 */
export function applyDashboardState(
  query: CubeQuery,
  state: {
    filters: Filter[];
    timeGrains: Grain[];
    limit: number | null;
    offset: number | null;
    total?: boolean;
  },
  members: ReadonlySet<string>,
): CubeQuery {
  state.filters.forEach((f, i) => {
    if (!members.has(f.member))
      throw bad(
        `body/filters/${i}/member`,
        `Unknown member in dashboard filter: ${f.member}`,
        'unknown_member',
      );
  });
  state.timeGrains.forEach((g, i) => {
    if (!members.has(g.member))
      throw bad(`body/timeGrains/${i}/member`, `Unknown member in time grain: ${g.member}`, 'unknown_member');
  });
  const grains = new Map(state.timeGrains.map((g) => [g.member, g.grain]));
  const timeDimensions = query.timeDimensions?.map((td) =>
    grains.has(td.dimension) && td.granularity !== undefined
      ? { ...td, granularity: grains.get(td.dimension) }
      : td,
  );
  return {
    ...query,
    ...(timeDimensions ? { timeDimensions } : {}),
    filters: [...(query.filters ?? []), ...state.filters.map(cubeFilter)],
    ...(state.limit !== null ? { limit: state.limit } : {}),
    ...(state.offset !== null ? { offset: state.offset } : {}),
    total: state.total ?? true,
  };
}

/** Every member name of a `/v1/meta` answer: cubes' and views' measures, dimensions and segments. */
export function memberNames(meta: { cubes?: unknown }): Set<string> {
  const names = new Set<string>();
  for (const cube of (meta.cubes ?? []) as Record<string, { name: string }[] | undefined>[]) {
    for (const kind of ['measures', 'dimensions', 'segments'])
      for (const m of cube[kind] ?? []) names.add(m.name);
  }
  return names;
}

/** The type of every dimension of a `/v1/meta` answer (`string`, `number`, `time`, ...), by name. */
export function dimensionTypes(meta: { cubes?: unknown }): Map<string, string> {
  const types = new Map<string, string>();
  for (const cube of (meta.cubes ?? []) as { dimensions?: { name: string; type?: string }[] }[])
    for (const d of cube.dimensions ?? []) types.set(d.name, d.type ?? 'string');
  return types;
}
