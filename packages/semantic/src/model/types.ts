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
  /**
   * The SQL moved by an interval (`forward`: later), as the dialect writes it: a time dimension
   * under a multi-stage measure's time_shift (planner/multi-stage.ts), never in a model.
   */
  | {
      readonly ref: 'timeShift';
      readonly sql: SqlTemplate;
      readonly interval: Interval;
      readonly forward: boolean;
    }
  /** `CAST((sql) AS <the dialect's text type>)`: a geo dimension's sides, as Cube joins them. */
  | { readonly ref: 'castText'; readonly sql: SqlTemplate }
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
  | { readonly ref: 'securityValue'; readonly path: readonly string[] }
  /**
   * `{created_at.half_year}`: a time dimension in the query's time zone, truncated to a built-in
   * or custom granularity (https://cube.dev/docs/product/data-modeling/reference/dimensions#granularities).
   */
  | {
      readonly ref: 'granularity';
      readonly cube: string;
      readonly member: string;
      readonly granularity: string;
    }
  /** `{SQL_UTILS.convertTz('created_at')}`: the SQL read as UTC, in the query's time zone. */
  | { readonly ref: 'convertTz'; readonly sql: SqlTemplate };

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
  /** The 50th percentile, interpolated; not additive (never summed across groups). */
  'median',
  'number',
  'string',
  'time',
  'boolean',
  'running_total',
  /** Multi-stage only: rank of the row within its partition (multi-stage.ts). */
  'rank',
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
  /** `multi_stage: true` and its options; null or absent for an ordinary measure. */
  readonly multiStage?: MultiStage | null;
}

/**
 * A multi-stage measure (https://cube.dev/docs/product/data-modeling/concepts/multi-stage-calculations):
 * computed from other measures' values at a grain derived from the query's, not from rows.
 */
export interface MultiStage {
  readonly timeShift: readonly TimeShift[];
  /** `group_by`: keep only these of the query's dimensions; null when absent. */
  readonly groupBy: readonly GrainRef[] | null;
  readonly reduceBy: readonly GrainRef[];
  readonly addGroupBy: readonly GrainRef[];
  /** `order_by` of a `rank` measure. */
  readonly orderBy: readonly { readonly sql: SqlTemplate; readonly desc: boolean }[];
}

/** A dimension named by group_by, reduce_by or add_group_by (`cube.member[.granularity]`). */
export interface GrainRef {
  readonly cube: string;
  readonly member: string;
  readonly granularity: string | null;
}

export interface TimeShift {
  /** `cube.member` or `view.member`; null: the query's time dimensions. */
  readonly timeDimension: string | null;
  readonly interval: Interval;
  readonly type: 'prior' | 'next';
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

/**
 * A hierarchy (model/hierarchies.ts): on a cube, levels are dimension paths (`users.city`); in a
 * view, the names of the view's members, and `aliasMember` is the cube's hierarchy.
 */
export interface Hierarchy {
  readonly name: string;
  readonly title: string | null;
  readonly public: boolean;
  readonly levels: readonly string[];
  readonly aliasMember: string | null;
  readonly loc: SourceLocation;
}

/** A view folder: member names of the view, or folders nested in it. */
export interface Folder {
  readonly name: string;
  readonly members: readonly (string | Folder)[];
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
  /** `hierarchies`, by name; absent on cubes built before hierarchies were read. */
  readonly hierarchies?: ReadonlyMap<string, Hierarchy>;
  readonly accessPolicy: readonly AccessPolicy[] | null;
  /** Rollups (`pre_aggregations`), by name (model/pre-aggregations.ts). */
  readonly preAggregations: ReadonlyMap<string, PreAggregation>;
  readonly loc: SourceLocation;
}

/**
 * A rollup pre-aggregation (https://cube.dev/docs/product/data-modeling/reference/pre-aggregations):
 * members of its cube and of cubes joined to it, summarised at `granularity` of `timeDimension`,
 * one table per `partitionGranularity` period of `buildRange` when partitioned.
 */
export interface PreAggregation {
  readonly cube: string;
  readonly name: string;
  readonly type: 'rollup';
  /** Members as `cube.member` paths (model/pre-aggregations.ts). */
  readonly measures: readonly string[];
  readonly dimensions: readonly string[];
  readonly timeDimension: string | null;
  readonly granularity: string | null;
  readonly partitionGranularity: string | null;
  readonly refreshKey: { readonly every: string | null; readonly sql: string | null };
  readonly buildRangeStart: string | null;
  readonly buildRangeEnd: string | null;
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
  /** Hierarchies of the included cubes, by their name in the view. */
  readonly hierarchies?: ReadonlyMap<string, Hierarchy>;
  readonly folders?: readonly Folder[];
  readonly accessPolicy: readonly AccessPolicy[] | null;
  readonly loc: SourceLocation;
}

export interface Model {
  readonly cubes: ReadonlyMap<string, Cube>;
  readonly views: ReadonlyMap<string, View>;
}
