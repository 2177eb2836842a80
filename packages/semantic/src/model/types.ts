/**
 * The compiled data model. Everything is resolved: `extends` merged, SQL templates parsed into
 * references, view members pointing at their cube member and join path.
 */

/** A part of a SQL template: raw text, or a reference resolved at compile time. */
export type TemplatePart =
  | string
  | { readonly ref: 'cube'; readonly cube: string }
  | { readonly ref: 'member'; readonly cube: string; readonly member: string }
  /** `{other.sql()}`: the other cube's SQL, as a subquery (or its table). */
  | { readonly ref: 'cubeSql'; readonly cube: string }
  /** A parameter of a lambda, inside its body. */
  | { readonly ref: 'arg'; readonly index: number }
  | ContextPart;

/**
 * What only the query can fill in (https://cube.dev/docs/product/data-modeling/reference/context-variables):
 * `{FILTER_PARAMS.cube.member.filter(sql | lambda)}`, `{FILTER_GROUP(...)}`,
 * `{SECURITY_CONTEXT.path.filter(sql | lambda)}` / `.requiredFilter(...)` / `.unsafeValue()`.
 */
export type ContextPart =
  | {
      readonly ref: 'filterParams';
      readonly cube: string;
      readonly member: string;
      readonly target: FilterTarget;
    }
  | { readonly ref: 'filterGroup'; readonly items: readonly Extract<ContextPart, { ref: 'filterParams' }>[] }
  | {
      readonly ref: 'securityContext';
      readonly path: readonly string[];
      readonly required: boolean;
      readonly target: FilterTarget;
    }
  | { readonly ref: 'securityValue'; readonly path: readonly string[] };

/** The SQL a filter applies to (`filter('t.created_at')`), or a lambda given the filter's values. */
export type FilterTarget =
  | { readonly kind: 'column'; readonly sql: SqlTemplate }
  | { readonly kind: 'lambda'; readonly params: number; readonly body: SqlTemplate };

export type SqlTemplate = readonly TemplatePart[];

export interface SourceLocation {
  readonly file: string;
  readonly line: number | null;
}

export const MEASURE_TYPES = [
  'count',
  'count_distinct',
  'count_distinct_approx',
  'sum',
  'avg',
  'min',
  'max',
  'number',
  'string',
  'time',
  'boolean',
  'running_total',
] as const;
export type MeasureType = (typeof MEASURE_TYPES)[number];

export const DIMENSION_TYPES = ['string', 'number', 'time', 'boolean', 'geo'] as const;
export type DimensionType = (typeof DIMENSION_TYPES)[number];

export const RELATIONSHIPS = ['many_to_one', 'one_to_many', 'one_to_one'] as const;
export type Relationship = (typeof RELATIONSHIPS)[number];

/** Parsed `N unit` interval; months and seconds kept apart because engines treat them apart. */
export interface Interval {
  readonly text: string;
  readonly months: number;
  readonly days: number;
  readonly seconds: number;
}

export interface RollingWindow {
  readonly type: 'fixed' | 'to_date';
  readonly trailing: Interval | 'unbounded' | null;
  readonly leading: Interval | 'unbounded' | null;
  readonly offset: 'start' | 'end';
  readonly granularity: string | null;
}

interface MemberBase {
  readonly cube: string;
  readonly name: string;
  readonly path: string;
  readonly title: string | null;
  readonly description: string | null;
  readonly meta: Readonly<Record<string, unknown>> | null;
  readonly public: boolean;
  /** `public` (or the older `shown`) as written; null when the model leaves it out. */
  readonly declaredPublic: boolean | null;
  readonly loc: SourceLocation;
}

export interface Measure extends MemberBase {
  readonly kind: 'measure';
  readonly type: MeasureType;
  readonly sql: SqlTemplate | null;
  readonly filters: readonly SqlTemplate[];
  readonly rollingWindow: RollingWindow | null;
  readonly format: unknown;
  readonly drillMembers: readonly string[];
}

export interface CustomGranularity {
  readonly name: string;
  readonly title: string | null;
  readonly interval: Interval;
  readonly offset: Interval | null;
  readonly origin: string | null;
}

export interface CaseLabel {
  readonly when: readonly { readonly sql: SqlTemplate; readonly label: string }[];
  readonly else: string | null;
}

export interface Dimension extends MemberBase {
  readonly kind: 'dimension';
  readonly type: DimensionType;
  readonly sql: SqlTemplate;
  readonly primaryKey: boolean;
  readonly subQuery: boolean;
  /** `propagate_filters_to_sub_query`: the query's filters apply inside the subquery too. */
  readonly propagateFiltersToSubQuery: boolean;
  readonly granularities: ReadonlyMap<string, CustomGranularity>;
  readonly case: CaseLabel | null;
  readonly format: unknown;
}

export interface Segment extends MemberBase {
  readonly kind: 'segment';
  readonly sql: SqlTemplate;
}

export type CubeMember = Measure | Dimension | Segment;

export interface Join {
  readonly name: string;
  readonly relationship: Relationship;
  readonly sql: SqlTemplate;
  readonly loc: SourceLocation;
}

/** A row-level filter as written in the model: values may still hold `{ securityContext.x }`. */
export type PolicyFilter =
  | { readonly member: string; readonly operator: string; readonly values: readonly unknown[] }
  | { readonly and: readonly PolicyFilter[] }
  | { readonly or: readonly PolicyFilter[] };

export interface AccessPolicy {
  readonly groups: readonly string[];
  readonly conditions: readonly string[];
  readonly memberLevel: {
    readonly includes: '*' | readonly string[];
    readonly excludes: readonly string[];
  } | null;
  readonly rowLevel: { readonly allowAll: boolean; readonly filters: readonly PolicyFilter[] } | null;
  readonly loc: SourceLocation;
}

export interface Cube {
  readonly kind: 'cube';
  readonly name: string;
  readonly title: string | null;
  readonly description: string | null;
  readonly meta: Readonly<Record<string, unknown>> | null;
  readonly public: boolean;
  readonly sqlTable: string | null;
  readonly sql: SqlTemplate | null;
  readonly dataSource: string;
  readonly refreshKey: { readonly every?: string; readonly sql?: string } | null;
  readonly joins: ReadonlyMap<string, Join>;
  readonly measures: ReadonlyMap<string, Measure>;
  readonly dimensions: ReadonlyMap<string, Dimension>;
  readonly segments: ReadonlyMap<string, Segment>;
  readonly primaryKeys: readonly Dimension[];
  readonly accessPolicy: readonly AccessPolicy[] | null;
  readonly loc: SourceLocation;
}

/** A member exposed by a view: the target cube member and the join path that reaches it. */
export interface ViewMember {
  readonly kind: 'measure' | 'dimension' | 'segment';
  readonly view: string;
  readonly name: string;
  readonly path: string;
  readonly target: CubeMember;
  readonly joinPath: readonly string[];
  readonly title: string | null;
  readonly description: string | null;
  readonly meta: Readonly<Record<string, unknown>> | null;
  readonly public: boolean;
}

export interface View {
  readonly kind: 'view';
  readonly name: string;
  readonly title: string | null;
  readonly description: string | null;
  readonly meta: Readonly<Record<string, unknown>> | null;
  readonly public: boolean;
  readonly members: ReadonlyMap<string, ViewMember>;
  readonly accessPolicy: readonly AccessPolicy[] | null;
  readonly loc: SourceLocation;
}

export interface Model {
  readonly cubes: ReadonlyMap<string, Cube>;
  readonly views: ReadonlyMap<string, View>;
}
