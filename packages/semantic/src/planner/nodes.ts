import type { ContextPart, Interval } from '../model/types.ts';

/**
 * The SQL tree: plain readonly objects, frozen on construction, like Kysely's operation nodes.
 * Dialects print it; nothing here knows about quoting or placeholders.
 */
export type Expr =
  /** Trusted model SQL with embedded expressions (member references). */
  | { readonly kind: 'raw'; readonly parts: readonly (string | Expr)[] }
  | { readonly kind: 'ident'; readonly path: readonly string[] }
  /** A value, always bound as a parameter. */
  | { readonly kind: 'param'; readonly value: string | number | boolean | null }
  /** A UTC instant `YYYY-MM-DDTHH:mm:ss.SSS`, bound as a parameter and cast to a timestamp. */
  | { readonly kind: 'timestamp'; readonly value: string; readonly local: boolean }
  /** A validated integer printed inline (limits, ordinals). */
  | { readonly kind: 'integer'; readonly value: number }
  /** UTC timestamp column -> wall clock in the query time zone. */
  | { readonly kind: 'toLocal'; readonly expr: Expr; readonly timezone: string }
  | { readonly kind: 'dateTrunc'; readonly unit: string; readonly expr: Expr }
  /** Custom granularity bucket start, from an origin (local timestamp). */
  | { readonly kind: 'timeBucket'; readonly interval: Interval; readonly origin: string; readonly expr: Expr }
  | { readonly kind: 'interval'; readonly interval: Interval }
  /** A time moved by a multi-stage measure's time_shift (`forward`: later), as the dialect writes it. */
  | {
      readonly kind: 'timeShift';
      readonly expr: Expr;
      readonly interval: Interval;
      readonly forward: boolean;
    }
  | {
      readonly kind: 'agg';
      readonly fn: 'count' | 'sum' | 'avg' | 'min' | 'max' | 'median' | 'approxCountDistinct';
      readonly distinct: boolean;
      readonly arg: Expr | null;
    }
  /** `castText`: its one argument as text, in the engine's text type. */
  | {
      readonly kind: 'func';
      /** `orderAsc`/`orderDesc`: a window's ORDER BY key, nulls where PostgreSQL puts them. */
      readonly name: 'coalesce' | 'castText' | 'orderAsc' | 'orderDesc';
      readonly args: readonly Expr[];
    }
  | { readonly kind: 'binary'; readonly op: BinaryOp; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'logical'; readonly op: 'and' | 'or'; readonly items: readonly Expr[] }
  | { readonly kind: 'not'; readonly expr: Expr }
  | { readonly kind: 'isNull'; readonly expr: Expr; readonly negated: boolean }
  | { readonly kind: 'in'; readonly expr: Expr; readonly values: readonly Expr[]; readonly negated: boolean }
  | {
      readonly kind: 'like';
      readonly expr: Expr;
      readonly mode: 'contains' | 'startsWith' | 'endsWith';
      readonly value: Expr;
      readonly negated: boolean;
    }
  | {
      readonly kind: 'case';
      readonly whens: readonly { when: Expr; result: Expr }[];
      readonly else: Expr | null;
    }
  | { readonly kind: 'bool'; readonly value: boolean }
  /** FILTER_PARAMS / SECURITY_CONTEXT in model SQL: filled from the query before printing (context.ts). */
  | { readonly kind: 'context'; readonly part: ContextPart };

export type BinaryOp = '=' | '<>' | '<' | '<=' | '>' | '>=' | '+' | '-' | 'IS NOT DISTINCT FROM';

export type Source =
  | { readonly kind: 'table'; readonly sql: string; readonly alias: string }
  | { readonly kind: 'sql'; readonly sql: Expr; readonly alias: string }
  | { readonly kind: 'subquery'; readonly select: Select; readonly alias: string }
  | {
      readonly kind: 'values';
      readonly rows: readonly (readonly Expr[])[];
      readonly columns: readonly string[];
      readonly alias: string;
    };

export interface JoinNode {
  readonly type: 'left' | 'inner' | 'full';
  readonly source: Source;
  readonly on: Expr;
}

export interface SelectItem {
  readonly expr: Expr;
  readonly alias: string;
}

export interface OrderItem {
  readonly expr: Expr;
  readonly desc: boolean;
}

export interface Select {
  readonly kind: 'select';
  readonly distinct: boolean;
  readonly items: readonly SelectItem[];
  readonly from: Source;
  readonly joins: readonly JoinNode[];
  readonly where: Expr | null;
  readonly groupBy: readonly Expr[];
  readonly having: Expr | null;
  readonly orderBy: readonly OrderItem[];
  readonly limit: number | null;
  readonly offset: number | null;
}

/** Deep-freezes a freshly built node. */
export function freeze<T>(node: T): T {
  if (typeof node === 'object' && node !== null && !Object.isFrozen(node)) {
    for (const v of Object.values(node)) freeze(v);
    Object.freeze(node);
  }
  return node;
}

export function select(parts: Partial<Select> & Pick<Select, 'items' | 'from'>): Select {
  return freeze({
    kind: 'select',
    distinct: false,
    joins: [],
    where: null,
    groupBy: [],
    having: null,
    orderBy: [],
    limit: null,
    offset: null,
    ...parts,
  });
}

export const ident = (...path: string[]): Expr => ({ kind: 'ident', path });
export const param = (value: string | number | boolean | null): Expr => ({ kind: 'param', value });
export const integer = (value: number): Expr => ({ kind: 'integer', value });
export const raw = (...parts: (string | Expr)[]): Expr => ({ kind: 'raw', parts });

export function and(items: readonly Expr[]): Expr | null {
  const list = items.filter((e) => !(e.kind === 'bool' && e.value));
  if (list.length === 0) return null;
  return list.length === 1 ? list[0] : { kind: 'logical', op: 'and', items: list };
}

export function or(items: readonly Expr[]): Expr {
  if (items.length === 0) return { kind: 'bool', value: false };
  return items.length === 1 ? items[0] : { kind: 'logical', op: 'or', items };
}
