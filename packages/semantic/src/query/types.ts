import type { CubeMember, View, ViewMember } from '../model/types.ts';
import type { LocalRange } from './date-range.ts';

/** Cube's REST query (https://cube.dev/docs/product/apis-integrations/rest-api/query-format). */
export interface CubeQuery {
  readonly measures?: readonly string[];
  readonly dimensions?: readonly string[];
  readonly segments?: readonly string[];
  readonly timeDimensions?: readonly TimeDimensionInput[];
  readonly filters?: readonly QueryFilter[];
  readonly order?: Readonly<Record<string, 'asc' | 'desc'>> | readonly (readonly [string, 'asc' | 'desc'])[];
  readonly limit?: number;
  readonly rowLimit?: number;
  readonly offset?: number;
  readonly total?: boolean;
  readonly timezone?: string;
  readonly ungrouped?: boolean;
  /** Cube's option: an ungrouped query need not name every joined cube's primary key. */
  readonly allowUngroupedWithoutPrimaryKey?: boolean;
  readonly renewQuery?: boolean;
  readonly responseFormat?: 'default' | 'compact' | 'columnar';
  readonly [key: string]: unknown;
}

export interface TimeDimensionInput {
  readonly dimension: string;
  readonly granularity?: string;
  readonly dateRange?: string | readonly string[];
  readonly compareDateRange?: readonly (string | readonly string[])[];
}

export type QueryFilter =
  | {
      readonly member?: string;
      readonly dimension?: string;
      readonly operator: string;
      readonly values?: readonly unknown[];
    }
  | { readonly and: readonly QueryFilter[] }
  | { readonly or: readonly QueryFilter[] };

export const FILTER_OPERATORS = [
  'equals',
  'notEquals',
  'contains',
  'notContains',
  'startsWith',
  'notStartsWith',
  'endsWith',
  'notEndsWith',
  'in',
  'notIn',
  'gt',
  'gte',
  'lt',
  'lte',
  'set',
  'notSet',
  'inDateRange',
  'notInDateRange',
  'beforeDate',
  'beforeOrOnDate',
  'afterDate',
  'afterOrOnDate',
  'measureFilter',
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** A member named by a query: directly on a cube, or through a view (with its join path). */
export interface QueryMember {
  readonly path: string;
  readonly owner: string;
  readonly member: CubeMember;
  readonly view: View | null;
  readonly viewMember: ViewMember | null;
}

/** A filter value after conversion: time values are UTC instants `YYYY-MM-DDTHH:mm:ss.SSS`. */
export type FilterValue = string | number | boolean | null | { readonly instant: string };

export type FilterNode =
  | {
      readonly kind: 'member';
      readonly member: QueryMember;
      readonly operator: FilterOperator;
      readonly values: readonly FilterValue[];
    }
  | { readonly kind: 'and'; readonly items: readonly FilterNode[] }
  | { readonly kind: 'or'; readonly items: readonly FilterNode[] }
  | { readonly kind: 'deny' };

export interface TimeDimensionSpec {
  readonly member: QueryMember;
  readonly granularity: string | null;
  readonly dateRange: LocalRange | null;
}

export interface OrderSpec {
  /** The response key of the ordered column (`orders.count`, `orders.created_at.month`). */
  readonly id: string;
  readonly desc: boolean;
}

/** A query resolved against the model and the security context; input of the planner. */
export interface ResolvedQuery {
  readonly measures: readonly QueryMember[];
  readonly dimensions: readonly QueryMember[];
  readonly timeDimensions: readonly TimeDimensionSpec[];
  readonly segments: readonly QueryMember[];
  /** User filters, AND-ed. */
  readonly filters: readonly FilterNode[];
  /** Row-level security filters, AND-ed into every WHERE; never mixed with user filters. */
  readonly security: readonly FilterNode[];
  readonly order: readonly OrderSpec[];
  readonly limit: number;
  readonly offset: number;
  readonly total: boolean;
  readonly timezone: string;
  readonly ungrouped: boolean;
}
