import { UserError } from '../errors.ts';
import type { Expr, JoinNode, Select, Source } from '../planner/nodes.ts';
import type { Dialect } from './dialect.ts';

export interface CompiledSql {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/**
 * Prints a frozen SQL tree. Every value becomes a positional parameter (equal values share one,
 * which keeps GROUP BY expressions identical for PostgreSQL); only validated integers and
 * model-trusted SQL are printed inline.
 */
export function printSelect(select: Select, dialect: Dialect): CompiledSql {
  const params: unknown[] = [];
  const seen = new Map<string, number>();
  const bind = (value: unknown): string => {
    const key = `${typeof value}:${String(value)}`;
    let index = seen.get(key);
    if (index === undefined) {
      params.push(value);
      index = params.length;
      seen.set(key, index);
    }
    return dialect.placeholder(index);
  };
  const q = dialect.quoteIdentifier;

  const expr = (e: Expr): string => {
    switch (e.kind) {
      case 'raw':
        return e.parts.map((p) => (typeof p === 'string' ? p : expr(p))).join('');
      case 'ident':
        return e.path.map(q).join('.');
      case 'param':
        return bind(e.value);
      case 'timestamp': {
        const kind = e.local ? 'local' : 'instant';
        return dialect.timestamp(bind(dialect.timestampValue(e.value, kind)), kind);
      }
      case 'integer':
        return String(e.value);
      case 'toLocal':
        if (e.timezone === 'UTC' && dialect.toLocalUtc) return dialect.toLocalUtc(expr(e.expr));
        return dialect.toLocal(expr(e.expr), bind(e.timezone), e.timezone);
      case 'dateTrunc':
        if (e.expr.kind === 'toLocal' && e.expr.timezone !== 'UTC' && dialect.truncLocal)
          return dialect.truncLocal(e.unit, expr(e.expr.expr), bind(e.expr.timezone), e.expr.timezone);
        return dialect.dateTrunc(e.unit, expr(e.expr));
      case 'timeBucket':
        return dialect.timeBucket(
          e.interval,
          expr(e.expr),
          dialect.timestamp(bind(dialect.timestampValue(e.origin, 'local')), 'local'),
        );
      case 'interval':
        return dialect.interval(e.interval);
      case 'timeShift': {
        const moved = expr(e.expr);
        if (dialect.timeShift) return dialect.timeShift(moved, e.interval, e.forward);
        return `(${moved}) ${e.forward ? '+' : '-'} ${dialect.interval(e.interval)}`;
      }
      case 'agg': {
        const arg = e.arg === null ? '*' : expr(e.arg);
        if (e.fn === 'approxCountDistinct') return dialect.approxCountDistinct(arg);
        if (e.fn === 'median') return dialect.median(arg);
        return `${e.fn}(${e.distinct ? 'DISTINCT ' : ''}${arg})`;
      }
      case 'func':
        if (e.name === 'castText') {
          const arg = expr(e.args[0]!);
          return dialect.castText ? dialect.castText(arg) : `CAST(${arg} AS TEXT)`;
        }
        if (e.name === 'orderAsc' || e.name === 'orderDesc') {
          // inside a window: MySQL/MariaDB have no NULLS FIRST/LAST there either (orderItem)
          const desc = e.name === 'orderDesc';
          if (dialect.orderItem) return dialect.orderItem(operand(e.args[0]!), desc);
          return `${expr(e.args[0]!)} ${desc ? 'DESC NULLS FIRST' : 'ASC NULLS LAST'}`;
        }
        return `COALESCE(${e.args.map(expr).join(', ')})`;
      case 'binary':
        if (e.op === 'IS NOT DISTINCT FROM' && dialect.notDistinct)
          return dialect.notDistinct(operand(e.left), operand(e.right));
        return `${operand(e.left)} ${e.op} ${operand(e.right)}`;
      case 'logical':
        return e.items
          .map((i) => (i.kind === 'logical' || i.kind === 'raw' ? `(${expr(i)})` : expr(i)))
          .join(e.op === 'and' ? ' AND ' : ' OR ');
      case 'not':
        return `NOT (${expr(e.expr)})`;
      case 'isNull':
        return `${operand(e.expr)} IS ${e.negated ? 'NOT ' : ''}NULL`;
      case 'in':
        return `${operand(e.expr)} ${e.negated ? 'NOT IN' : 'IN'} (${e.values.map(expr).join(', ')})`;
      case 'like': {
        const v = expr(e.value);
        const parts =
          e.mode === 'contains' ? ["'%'", v, "'%'"] : e.mode === 'startsWith' ? [v, "'%'"] : ["'%'", v];
        const pattern = dialect.concat ? dialect.concat(parts) : parts.join(' || ');
        if (dialect.like) return dialect.like(operand(e.expr), pattern, e.negated);
        return `${operand(e.expr)} ${e.negated ? 'NOT ILIKE' : 'ILIKE'} (${pattern}) ESCAPE '\\'`;
      }
      case 'case': {
        const whens = e.whens.map((w) => `WHEN ${expr(w.when)} THEN ${expr(w.result)}`).join(' ');
        return `CASE ${whens}${e.else ? ` ELSE ${expr(e.else)}` : ''} END`;
      }
      case 'context':
        throw new Error('Model context (FILTER_PARAMS, SECURITY_CONTEXT) left unresolved');
      case 'bool':
        return e.value ? 'TRUE' : 'FALSE';
    }
  };
  // model SQL may be any expression: keep it grouped when an operator follows
  const operand = (e: Expr): string => {
    const s = expr(e);
    return (e.kind === 'raw' || e.kind === 'binary' || e.kind === 'logical') && /\s/.test(s) ? `(${s})` : s;
  };

  const source = (s: Source, indent: string): string => {
    switch (s.kind) {
      case 'table':
        return `${s.sql} AS ${q(s.alias)}`;
      case 'sql':
        return `(${expr(s.sql)}) AS ${q(s.alias)}`;
      case 'subquery':
        return `(\n${selectSql(s.select, `${indent}  `)}\n${indent}) AS ${q(s.alias)}`;
      case 'values': {
        if (dialect.values)
          return `(${dialect.values(
            s.rows.map((r) => r.map(expr)),
            s.columns.map(q),
          )}) AS ${q(s.alias)}`;
        const rows = s.rows.map((r) => `(${r.map(expr).join(', ')})`).join(`,\n${indent}  `);
        return `(VALUES\n${indent}  ${rows}\n${indent}) AS ${q(s.alias)} (${s.columns.map(q).join(', ')})`;
      }
    }
  };
  const join = (j: JoinNode, indent: string): string => {
    if (j.type === 'full' && dialect.refuses?.fullJoin) throw new UserError(dialect.refuses.fullJoin);
    const kind = j.type === 'left' ? 'LEFT JOIN' : j.type === 'inner' ? 'INNER JOIN' : 'FULL JOIN';
    return `${indent}${kind} ${source(j.source, indent)} ON ${on(j)}`;
  };
  const on = (j: JoinNode): string => {
    const printed = expr(j.on);
    if (!dialect.keylessJoin) return printed;
    const sides = keylessSides(j.on, j.source.alias);
    return sides ? dialect.keylessJoin(printed, expr(sides.left), expr(sides.right)) : printed;
  };
  const selectSql = (s: Select, indent: string): string => {
    if (
      dialect.orderItem &&
      s.orderBy.length > 0 &&
      s.orderBy.every((o) => o.expr.kind === 'integer' && o.expr.value >= 1 && o.expr.value <= s.items.length)
    )
      return orderedOutside(s, indent);
    const lines = [`${indent}SELECT${s.distinct ? ' DISTINCT' : ''}`];
    lines.push(s.items.map((i) => `${indent}  ${expr(i.expr)} AS ${q(i.alias)}`).join(',\n'));
    lines.push(`${indent}FROM ${source(s.from, indent)}`);
    for (const j of s.joins) lines.push(join(j, indent));
    if (s.where) lines.push(`${indent}WHERE ${expr(s.where)}`);
    if (s.groupBy.length > 0) lines.push(`${indent}GROUP BY ${s.groupBy.map(expr).join(', ')}`);
    if (s.having) lines.push(`${indent}HAVING ${expr(s.having)}`);
    if (s.orderBy.length > 0) {
      lines.push(
        `${indent}ORDER BY ${s.orderBy.map((o) => `${expr(o.expr)} ${direction(o.desc)}`).join(', ')}`,
      );
    }
    lines.push(...limitOffset(s, indent));
    return lines.join('\n');
  };
  // The engine's own ORDER BY puts NULLs elsewhere: order the rows outside, by the items' aliases
  // (an ordinal inside an expression would be a constant, an alias there may be ambiguous).
  const orderedOutside = (s: Select, indent: string): string => {
    const inner = selectSql({ ...s, orderBy: [], limit: null, offset: null }, `${indent}  `);
    const items = s.orderBy.map((o) =>
      dialect.orderItem!(q(s.items[(o.expr as { value: number }).value - 1]!.alias), o.desc),
    );
    const lines = [`${indent}SELECT * FROM (`, inner, `${indent}) AS ${q('ordered')}`];
    lines.push(`${indent}ORDER BY ${items.join(', ')}`);
    lines.push(...limitOffset(s, indent));
    return lines.join('\n');
  };
  const direction = (desc: boolean): string =>
    dialect.nullsOrder ? (desc ? 'DESC NULLS FIRST' : 'ASC NULLS LAST') : desc ? 'DESC' : 'ASC';
  const limitOffset = (s: Select, indent: string): string[] => {
    const limit = s.limit !== null ? [`${indent}LIMIT ${s.limit}`] : [];
    const offset = s.offset !== null ? [`${indent}OFFSET ${s.offset}`] : [];
    return dialect.offsetBeforeLimit ? [...offset, ...limit] : [...limit, ...offset];
  };
  const sql = selectSql(select, '');
  return { sql, params };
}

/**
 * A column of each side of a JOIN ON made of comparisons joined by AND with no equality among
 * them (the rolling window's `t > from AND t <= to`); null for any other ON, which keeps its own.
 */
function keylessSides(on: Expr, right: string): { left: Expr; right: Expr } | null {
  const items = on.kind === 'logical' && on.op === 'and' ? on.items : [on];
  const idents: Extract<Expr, { kind: 'ident' }>[] = [];
  const collect = (e: Expr): boolean => {
    switch (e.kind) {
      case 'ident':
        idents.push(e);
        return true;
      case 'binary':
        return e.op !== '=' && e.op !== 'IS NOT DISTINCT FROM' && collect(e.left) && collect(e.right);
      case 'raw':
        return e.parts.every((p) =>
          typeof p === 'string' ? !p.replace(/[<>!]=/g, '').includes('=') : collect(p),
        );
      case 'dateTrunc':
      case 'toLocal':
      case 'timeShift':
        return collect(e.expr);
      case 'timestamp':
      case 'interval':
      case 'integer':
      case 'param':
        return true;
      default:
        return false;
    }
  };
  if (!items.every(collect)) return null;
  const l = idents.find((i) => i.path.length > 1 && i.path[0] !== right);
  const r = idents.find((i) => i.path.length > 1 && i.path[0] === right);
  return l && r ? { left: l, right: r } : null;
}
