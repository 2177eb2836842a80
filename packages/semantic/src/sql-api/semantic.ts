import type { Model } from '../model/types.ts';
import { resolveAccess } from '../security/access.ts';
import { literal, type Node, names, quote, unsupported } from './ast.ts';
import { SemanticCollector } from './collector.ts';
import { compileSemantic } from './compile.ts';
import type { PlanContext, Printed } from './context.ts';
import { printExpr } from './expr.ts';
import { translateConditions } from './filters.ts';
import { limitOf } from './limits.ts';
import { type CubeTable, MemberResolver } from './tables.ts';
import { sortItem } from './window.ts';

interface Target {
  readonly name: string;
  readonly node: Node | null;
  /** Set when the target is a member as is: pushed into the Cube query's order. */
  readonly key: string | null;
}

/**
 * A SELECT over cubes and views -> one Cube query, compiled by compileQuery under the caller's
 * security context, wrapped in a SELECT that computes what the Cube query cannot (arithmetic,
 * CASE, window functions over the grouped rows) from the query's columns only. Members are
 * registered while printing (first pass); the second pass prints them as the compiled aliases.
 */
export function translateCubeSelect(
  stmt: Node,
  tables: readonly CubeTable[],
  ctx: PlanContext,
  positional: boolean,
): Printed {
  if (stmt.distinctClause?.some((d: Node) => Object.keys(d).length > 0)) throw unsupported('DISTINCT ON');
  const access = resolveAccess(ctx.model, ctx.securityContext);
  const resolver = new MemberResolver(ctx.model, access, tables);
  const members = new SemanticCollector(resolver);
  const targets = expandTargets(stmt.targetList ?? [], resolver);

  const conditions = translateConditions(stmt.whereClause, (n) => members.operand(n));
  const having = translateConditions(stmt.havingClause, (n) => members.operand(n));
  if (having.segments.length > 0) throw unsupported('segment in HAVING');

  const print = (node: Node) => printExpr(node, members.hooks);
  const keyed = targets.map((t) => ({ ...t, key: t.key ?? directKey(t.node, members) }));
  for (const t of keyed) if (t.node) print(t.node);
  for (const g of stmt.groupClause ?? []) members.group(groupKey(g, keyed, members));

  const order = (stmt.sortClause ?? []).map((s: Node) => {
    const sort = s.SortBy;
    const index = targetIndex(sort.node, keyed);
    const key = index >= 0 ? keyed[index].key : directKey(sort.node, members);
    if (index < 0) print(sort.node);
    const plain = sort.sortby_nulls === 'SORTBY_NULLS_DEFAULT' || !sort.sortby_nulls;
    return { sort, index, key: plain ? key : null, desc: sort.sortby_dir === 'SORTBY_DESC' };
  });
  const pushOrder = order.every((o: { key: string | null }) => o.key !== null);
  const limit = limitOf(stmt);
  const aggregated =
    members.hasMeasures() || (stmt.groupClause?.length ?? 0) > 0 || (stmt.distinctClause?.length ?? 0) > 0;
  const query = members.query({
    filters: [...conditions.filters, ...having.filters],
    segments: conditions.segments,
    order: pushOrder
      ? order.map((o: { key: string; desc: boolean }) => [o.key, o.desc ? 'desc' : 'asc'])
      : [],
    limit: pushOrder ? limit.count : null,
    offset: pushOrder ? limit.offset : 0,
    ungrouped: !aggregated,
    timezone: ctx.timezone,
  });
  const compiled = compileSemantic(ctx, query);
  members.bind(compiled.aliases);

  const items = keyed.map((t, i) => {
    const sql = t.node ? print(t.node) : members.ref(t.key!);
    return `${sql} AS ${quote(positional ? `__c${i}` : t.name)}`;
  });
  const orderSql = order.map((o: { sort: Node; index: number }) =>
    o.index >= 0
      ? sortItem({ ...o.sort, node: { A_Const: { ival: { ival: o.index + 1 } } } }, print)
      : sortItem(o.sort, print),
  );
  const lines = [`SELECT ${items.join(', ')}`, `FROM (${compiled.sql}) AS "__q"`];
  if (orderSql.length > 0) lines.push(`ORDER BY ${orderSql.join(', ')}`);
  if (!pushOrder && limit.count !== null) lines.push(`LIMIT ${limit.count}`);
  if (!pushOrder && limit.offset > 0) lines.push(`OFFSET ${limit.offset}`);
  return {
    sql: lines.join('\n'),
    columns: keyed.map((t) => t.name),
    types: keyed.map((t) => (t.key ? members.typeOf(t.key) : null)),
  };
}

/** `*` and `t.*` are the table's dimensions (Cube's SQL API); other targets keep their expression. */
function expandTargets(list: readonly Node[], resolver: MemberResolver): Target[] {
  const out: Target[] = [];
  for (const item of list) {
    const rt = item.ResTarget;
    const fields = rt.val?.ColumnRef ? names(rt.val.ColumnRef.fields) : [];
    if (fields[fields.length - 1] === '*') {
      const tables =
        fields.length === 1 ? resolver.tables : resolver.tables.filter((t) => t.alias === fields[0]);
      if (tables.length === 0) throw unsupported(`${fields.join('.')}: unknown table`);
      for (const t of tables)
        for (const d of resolver.dimensions(t))
          out.push({ name: d.name, node: columnRef(t.alias, d.name), key: null });
      continue;
    }
    out.push({ name: rt.name ?? defaultName(rt.val), node: rt.val, key: null });
  }
  return out;
}

function columnRef(table: string, column: string): Node {
  return { ColumnRef: { fields: [{ String: { sval: table } }, { String: { sval: column } }] } };
}

/** PostgreSQL's default column names: the column, the function, or `?column?`. */
export function defaultName(node: Node): string {
  if (node.ColumnRef) return names(node.ColumnRef.fields).at(-1)!;
  if (node.FuncCall) return names(node.FuncCall.funcname).at(-1)!.toLowerCase();
  if (node.TypeCast) return defaultName(node.TypeCast.arg);
  if (node.CaseExpr) return 'case';
  if (node.CoalesceExpr) return 'coalesce';
  return '?column?';
}

function directKey(node: Node | null, members: SemanticCollector): string | null {
  return node ? members.direct(node) : null;
}

/** ORDER BY / GROUP BY item naming a target: an ordinal or an output name. */
function targetIndex(node: Node, targets: readonly Target[]): number {
  const v = literal(node);
  if (node.A_Const && typeof v?.value === 'number') {
    const i = v.value - 1;
    if (!Number.isInteger(i) || i < 0 || i >= targets.length)
      throw unsupported(`position ${v.value} out of range`);
    return i;
  }
  const fields = node.ColumnRef ? names(node.ColumnRef.fields) : [];
  if (fields.length === 1) return targets.findIndex((t) => t.name === fields[0]);
  return -1;
}

function groupKey(node: Node, targets: readonly Target[], members: SemanticCollector): string {
  const index = targetIndex(node, targets);
  const key = index >= 0 ? targets[index].key : members.direct(node);
  if (!key || members.isMeasure(key)) {
    throw unsupported('GROUP BY an expression; group by dimensions and compute in an outer query');
  }
  return key;
}

export type { Model };
