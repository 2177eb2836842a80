import type { Model } from '../model/types.ts';
import type { FilterNode, FilterOperator, FilterValue, QueryMember } from '../query/types.ts';
import { renderTemplate } from './member-sql.ts';
import { and, type Expr, or, param } from './nodes.ts';

/**
 * Filter tree -> boolean expression, with Cube's operator semantics (BaseFilter): negative
 * operators also keep NULL rows (`x <> $1 OR x IS NULL`), several values of `contains` are OR-ed,
 * date operators compare the raw UTC column with UTC instants.
 */
export function filterExpr(model: Model, node: FilterNode, memberValue: (m: QueryMember) => Expr): Expr {
  if (node.kind === 'deny') return { kind: 'bool', value: false };
  if (node.kind === 'and' || node.kind === 'or') {
    const items = node.items.map((n) => filterExpr(model, n, memberValue));
    // an empty group filters nothing, `or` included
    if (items.length === 0) return { kind: 'bool', value: true };
    return node.kind === 'and' ? (and(items) ?? { kind: 'bool', value: true }) : or(items);
  }
  const { operator, values } = node;
  if (operator === 'measureFilter') {
    const m = node.member.member;
    const filters = m.kind === 'measure' ? m.filters.map((f) => renderTemplate(model, f)) : [];
    return and(filters) ?? { kind: 'bool', value: true };
  }
  const x = memberValue(node.member);
  const v = values.map(value);
  const isNull = (negated: boolean): Expr => ({ kind: 'isNull', expr: x, negated });
  const cmp = (op: '<' | '<=' | '>' | '>=', i = 0): Expr => ({ kind: 'binary', op, left: x, right: v[i] });
  switch (operator) {
    case 'equals':
    case 'in': {
      const nonNull = v.filter((_, i) => values[i] !== null);
      const parts: Expr[] = [];
      if (nonNull.length === 1) parts.push({ kind: 'binary', op: '=', left: x, right: nonNull[0] });
      if (nonNull.length > 1) parts.push({ kind: 'in', expr: x, values: nonNull, negated: false });
      if (nonNull.length < v.length) parts.push(isNull(false));
      return or(parts);
    }
    case 'notEquals':
    case 'notIn': {
      const nonNull = v.filter((_, i) => values[i] !== null);
      const hasNull = nonNull.length < v.length;
      const test: Expr | null =
        nonNull.length === 0
          ? null
          : nonNull.length === 1
            ? { kind: 'binary', op: '<>', left: x, right: nonNull[0] }
            : { kind: 'in', expr: x, values: nonNull, negated: true };
      if (test === null) return isNull(true);
      return hasNull ? and([test, isNull(true)])! : or([test, isNull(false)]);
    }
    case 'contains':
    case 'startsWith':
    case 'endsWith':
    case 'notContains':
    case 'notStartsWith':
    case 'notEndsWith':
      return likeFilter(x, operator, values);
    case 'gt':
      return cmp('>');
    case 'gte':
      return cmp('>=');
    case 'lt':
      return cmp('<');
    case 'lte':
      return cmp('<=');
    case 'set':
      return isNull(true);
    case 'notSet':
      return isNull(false);
    case 'inDateRange':
      return and([cmp('>='), cmp('<=', 1)])!;
    case 'notInDateRange':
      return or([cmp('<'), cmp('>', 1)]);
    case 'beforeDate':
      return cmp('<');
    case 'beforeOrOnDate':
      return cmp('<=');
    case 'afterDate':
      return cmp('>');
    case 'afterOrOnDate':
      return cmp('>=');
  }
}

/**
 * Cube's BaseFilter.likeOr: the non-null values OR-ed (AND-ed when negated), each taken
 * literally (`%` and `_` escaped, where Cube escapes them for contains only); a null among the
 * values adds `OR x IS NULL`, and a negated filter without null keeps NULL rows.
 */
function likeFilter(x: Expr, operator: FilterOperator, values: readonly FilterValue[]): Expr {
  const negated = operator.startsWith('not');
  const base = negated ? operator.slice(3) : operator;
  const mode = (base[0].toLowerCase() + base.slice(1)) as 'contains' | 'startsWith' | 'endsWith';
  const likes: Expr[] = values
    .filter((v) => v !== null)
    .map((v) => ({ kind: 'like', expr: x, mode, value: param(escapeLike(String(v))), negated }));
  const hasNull = likes.length < values.length;
  const isNull: Expr = { kind: 'isNull', expr: x, negated: false };
  if (likes.length === 0) return { kind: 'isNull', expr: x, negated };
  const combined = negated ? and(likes)! : or(likes);
  return negated !== hasNull ? or([combined, isNull]) : combined;
}

/** LIKE patterns escape with a backslash (printed with `ESCAPE '\'` on every dialect). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export function value(v: FilterValue): Expr {
  if (v !== null && typeof v === 'object') return { kind: 'timestamp', value: v.instant, local: false };
  return { kind: 'param', value: v };
}
