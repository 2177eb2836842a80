import { UserError } from '../errors.ts';
import type { ContextPart, FilterTarget, Model } from '../model/types.ts';
import type { FilterNode } from '../query/types.ts';
import type { SecurityContext } from '../security/context.ts';
import { filterExpr, value } from './filters.ts';
import { renderTemplate, timeExpr } from './member-sql.ts';
import { and, type Expr, freeze, type JoinNode, or, param, raw, type Select, type Source } from './nodes.ts';

/**
 * Context variables in model SQL (https://cube.dev/docs/product/data-modeling/reference/context-variables),
 * filled in from the query once the plan is built, so that member SQL stays query-free (and
 * cached):
 * - `FILTER_PARAMS.cube.member.filter(sql)`: the query's filters on that member (its date range
 *   included), applied to `sql` instead of the member; none: `1 = 1`. Filters under an `or` are
 *   pushed only through FILTER_GROUP, which keeps the and/or shape of the members it names.
 * - `SECURITY_CONTEXT.path.filter(sql)`: `sql = $1` (`IN (...)` for a list) from the token's
 *   security context; absent: `1 = 1`, or a UserError for `requiredFilter`. `unsafeValue()` is
 *   bound as a parameter all the same.
 * Lambdas (JavaScript models' callbacks) get the filter's values as parameters.
 */
export interface QueryContext {
  readonly model: Model;
  /** The query's filters, time-dimension date ranges included (as inDateRange). */
  readonly filters: readonly FilterNode[];
  readonly securityContext: SecurityContext;
  /** For `{dim.granularity}` and SQL_UTILS.convertTz in model SQL: the query's zone and clock. */
  readonly timezone?: string;
  readonly now?: number;
}

const TRUE: Expr = { kind: 'bool', value: true };

export function bindContext(select: Select, ctx: QueryContext): Select {
  return freeze(bindSelect(select, ctx));
}

function bindSelect(s: Select, ctx: QueryContext): Select {
  const e = (x: Expr) => bindExpr(x, ctx);
  return {
    ...s,
    items: s.items.map((i) => ({ ...i, expr: e(i.expr) })),
    from: bindSource(s.from, ctx),
    joins: s.joins.map((j): JoinNode => ({ ...j, source: bindSource(j.source, ctx), on: e(j.on) })),
    where: s.where && e(s.where),
    groupBy: s.groupBy.map(e),
    having: s.having && e(s.having),
    orderBy: s.orderBy.map((o) => ({ ...o, expr: e(o.expr) })),
  };
}

function bindSource(source: Source, ctx: QueryContext): Source {
  switch (source.kind) {
    case 'table':
      return source;
    case 'sql':
      return { ...source, sql: bindExpr(source.sql, ctx) };
    case 'subquery':
      return { ...source, select: bindSelect(source.select, ctx) };
    case 'values':
      return { ...source, rows: source.rows.map((r) => r.map((x) => bindExpr(x, ctx))) };
  }
}

/** Rebuilds only what holds a context node; everything else is returned as it is. */
function bindExpr(x: Expr, ctx: QueryContext): Expr {
  if (!holdsContext(x)) return x;
  const e = (y: Expr) => bindExpr(y, ctx);
  switch (x.kind) {
    case 'context':
      return bindExpr(resolve(x.part, ctx), ctx);
    case 'raw':
      return { ...x, parts: x.parts.map((p) => (typeof p === 'string' ? p : e(p))) };
    case 'toLocal':
    case 'dateTrunc':
    case 'timeBucket':
    case 'timeShift':
    case 'not':
    case 'isNull':
      return { ...x, expr: e(x.expr) };
    case 'agg':
      return { ...x, arg: x.arg && e(x.arg) };
    case 'func':
      return { ...x, args: x.args.map(e) };
    case 'binary':
      return { ...x, left: e(x.left), right: e(x.right) };
    case 'logical':
      return { ...x, items: x.items.map(e) };
    case 'in':
      return { ...x, expr: e(x.expr), values: x.values.map(e) };
    case 'like':
      return { ...x, expr: e(x.expr), value: e(x.value) };
    case 'case':
      return {
        ...x,
        whens: x.whens.map((w) => ({ when: e(w.when), result: e(w.result) })),
        else: x.else && e(x.else),
      };
    default:
      return x;
  }
}

const seen = new WeakMap<Expr, boolean>();

function holdsContext(x: Expr): boolean {
  const hit = seen.get(x);
  if (hit !== undefined) return hit;
  let found: boolean;
  switch (x.kind) {
    case 'context':
      found = true;
      break;
    case 'raw':
      found = x.parts.some((p) => typeof p !== 'string' && holdsContext(p));
      break;
    case 'toLocal':
    case 'dateTrunc':
    case 'timeBucket':
    case 'timeShift':
    case 'not':
    case 'isNull':
      found = holdsContext(x.expr);
      break;
    case 'agg':
      found = x.arg !== null && holdsContext(x.arg);
      break;
    case 'func':
      found = x.args.some(holdsContext);
      break;
    case 'binary':
      found = holdsContext(x.left) || holdsContext(x.right);
      break;
    case 'logical':
      found = x.items.some(holdsContext);
      break;
    case 'in':
      found = holdsContext(x.expr) || x.values.some(holdsContext);
      break;
    case 'like':
      found = holdsContext(x.expr) || holdsContext(x.value);
      break;
    case 'case':
      found =
        x.whens.some((w) => holdsContext(w.when) || holdsContext(w.result)) ||
        (x.else !== null && holdsContext(x.else));
      break;
    default:
      found = false;
  }
  if (Object.isFrozen(x)) seen.set(x, found);
  return found;
}

function resolve(part: ContextPart, ctx: QueryContext): Expr {
  switch (part.ref) {
    case 'filterParams': {
      const leaves = andLeaves(ctx.filters).filter((f) => onMember(f, part.cube, part.member));
      return and(leaves.map((f) => applyFilter(f, part.target, ctx))) ?? TRUE;
    }
    case 'filterGroup':
      return and(ctx.filters.map((f) => groupExpr(f, part.items, ctx) ?? TRUE)) ?? TRUE;
    case 'securityContext': {
      const v = lookup(ctx.securityContext, part.path);
      if (v === undefined || v === null) {
        if (part.required) throw new UserError(`Filter for ${part.path.join('.')} is required`);
        return TRUE;
      }
      const values = (Array.isArray(v) ? v : [v]).map(scalar);
      if (part.target.kind === 'lambda') {
        return renderTemplate(ctx.model, part.target.body, undefined, [
          Array.isArray(v) ? list(values) : values[0],
        ]);
      }
      const column = renderTemplate(ctx.model, part.target.sql);
      if (Array.isArray(v)) {
        return values.length === 0
          ? { kind: 'bool', value: false }
          : { kind: 'in', expr: column, values, negated: false };
      }
      return { kind: 'binary', op: '=', left: column, right: values[0] };
    }
    case 'granularity': {
      const dim = ctx.model.cubes.get(part.cube)!.dimensions.get(part.member)!;
      return timeExpr(ctx.model, dim, part.granularity, ctx.timezone ?? 'UTC', ctx.now ?? Date.now());
    }
    case 'convertTz':
      return { kind: 'toLocal', expr: renderTemplate(ctx.model, part.sql), timezone: ctx.timezone ?? 'UTC' };
    case 'securityValue': {
      const v = lookup(ctx.securityContext, part.path);
      return Array.isArray(v) ? list(v.map(scalar)) : scalar(v);
    }
  }
}

/** The filter applied to the target SQL instead of its member, or given to the lambda. */
function applyFilter(
  f: Extract<FilterNode, { kind: 'member' }>,
  target: FilterTarget,
  ctx: QueryContext,
): Expr {
  if (target.kind === 'column') {
    const column = renderTemplate(ctx.model, target.sql);
    return filterExpr(ctx.model, f, () => column);
  }
  const values = f.values.map(value);
  const args = target.params === 1 && values.length > 1 ? [list(values)] : values;
  return renderTemplate(ctx.model, target.body, undefined, args);
}

/** Leaves reached through `and` only: an `or` is pushed by FILTER_GROUP, never in part. */
function andLeaves(filters: readonly FilterNode[]): Extract<FilterNode, { kind: 'member' }>[] {
  return filters.flatMap((f) => (f.kind === 'member' ? [f] : f.kind === 'and' ? andLeaves(f.items) : []));
}

function onMember(f: Extract<FilterNode, { kind: 'member' }>, cube: string, member: string): boolean {
  return f.member.member.cube === cube && f.member.member.name === member;
}

/** A filter tree over the group's members only; null where it touches another member. */
function groupExpr(
  f: FilterNode,
  items: readonly Extract<ContextPart, { ref: 'filterParams' }>[],
  ctx: QueryContext,
): Expr | null {
  if (f.kind === 'member') {
    const item = items.find((i) => onMember(f, i.cube, i.member));
    return item ? applyFilter(f, item.target, ctx) : null;
  }
  if (f.kind === 'and') {
    const parts = f.items.map((i) => groupExpr(i, items, ctx)).filter((x): x is Expr => x !== null);
    return and(parts);
  }
  if (f.kind === 'or') {
    const parts = f.items.map((i) => groupExpr(i, items, ctx));
    return parts.some((x) => x === null) || parts.length === 0 ? null : or(parts as Expr[]);
  }
  return null;
}

function lookup(ctx: SecurityContext, path: readonly string[]): unknown {
  let v: unknown = ctx;
  for (const key of path) {
    if (typeof v !== 'object' || v === null || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

function scalar(v: unknown): Expr {
  if (v === undefined || v === null) return param(null);
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return param(v);
  throw new UserError(
    'A security context value used in model SQL must be a string, number, boolean or a list of them',
  );
}

function list(values: readonly Expr[]): Expr {
  return raw(...values.flatMap((v, i) => (i === 0 ? [v] : [', ', v])));
}
