import { kindOf, type Node, names, quote, SqlApiError, unsupported } from './ast.ts';
import { findCte, type PlanContext, type Printed, type Scope } from './context.ts';
import { type ExprHooks, printExpr } from './expr.ts';
import { limitOf } from './limits.ts';
import { defaultName, translateCubeSelect } from './semantic.ts';
import { cubeOfRangeVar, cubeTables } from './tables.ts';
import { sortItem } from './window.ts';

interface Relation {
  readonly alias: string;
  readonly columns: readonly string[];
}

/** Columns visible to an expression: this query's FROM items, then enclosing queries'. */
interface Columns {
  readonly relations: readonly Relation[];
  readonly parent: Columns | null;
}

/**
 * Any SELECT of the statement: a SELECT over cubes becomes a semantic query (semantic.ts);
 * anything else is outer SQL, re-printed from its validated parse tree, over CTEs and subqueries
 * only: a table that is not a CTE is refused, so outer SQL can read nothing but semantic results.
 * `positional` names the output columns `__c0..` (the top level), so duplicate names survive.
 */
export function printQuery(
  stmt: Node,
  ctx: PlanContext,
  scope: Scope | null,
  positional: boolean,
  outer: Columns | null = null,
): Printed {
  if (stmt.intoClause) throw unsupported('SELECT INTO');
  if (stmt.lockingClause) throw unsupported('FOR UPDATE/SHARE');
  if (stmt.windowClause) throw unsupported('WINDOW clause (named windows)');
  if (stmt.valuesLists) throw unsupported('VALUES lists');
  let inner = scope;
  let withSql = '';
  if (stmt.withClause) {
    if (stmt.withClause.recursive) throw unsupported('WITH RECURSIVE');
    const ctes = new Map<string, readonly string[]>();
    inner = { ctes, parent: scope };
    const parts: string[] = [];
    for (const c of stmt.withClause.ctes) {
      const cte = c.CommonTableExpr;
      if (!cte.ctequery?.SelectStmt) throw unsupported('data-modifying statement in WITH');
      const printed = printQuery(cte.ctequery.SelectStmt, ctx, inner, false, outer);
      const renamed = cte.aliascolnames ? names(cte.aliascolnames) : null;
      ctes.set(cte.ctename, renamed ?? printed.columns);
      const list = renamed ? `(${renamed.map(quote).join(', ')})` : '';
      parts.push(`${quote(cte.ctename)}${list} AS (${printed.sql})`);
    }
    withSql = `WITH ${parts.join(', ')}\n`;
  }
  const body =
    stmt.op && stmt.op !== 'SETOP_NONE'
      ? setOperation(stmt, ctx, inner, positional, outer)
      : simple(stmt, ctx, inner, positional, outer);
  return { ...body, sql: withSql + body.sql };
}

function setOperation(
  stmt: Node,
  ctx: PlanContext,
  scope: Scope | null,
  positional: boolean,
  outer: Columns | null,
): Printed {
  const op = { SETOP_UNION: 'UNION', SETOP_INTERSECT: 'INTERSECT', SETOP_EXCEPT: 'EXCEPT' }[
    stmt.op as string
  ];
  if (!op) throw unsupported(`set operation ${stmt.op}`);
  const left = printQuery(stmt.larg, ctx, scope, positional, outer);
  const right = printQuery(stmt.rarg, ctx, scope, false, outer);
  if (left.columns.length !== right.columns.length)
    throw new SqlApiError(`each ${op} query must have the same number of columns`);
  const lines = [`(${left.sql})\n${op}${stmt.all ? ' ALL' : ''}\n(${right.sql})`];
  const byName = (n: Node) => {
    const fields = n.ColumnRef ? names(n.ColumnRef.fields) : [];
    const i = fields.length === 1 ? left.columns.indexOf(fields[0]) : -1;
    if (i >= 0) return String(i + 1);
    if (n.A_Const) return printExpr(n, noColumns);
    throw unsupported(`ORDER BY of ${op} by anything but an output column`);
  };
  if (stmt.sortClause)
    lines.push(`ORDER BY ${stmt.sortClause.map((s: Node) => sortItem(s.SortBy, byName)).join(', ')}`);
  lines.push(...limitSql(stmt, positional));
  return { sql: lines.join('\n'), columns: left.columns, types: left.columns.map(() => null) };
}

const noColumns: ExprHooks = {
  column: (f) => {
    throw unsupported(`column ${f.join('.')} here`);
  },
  subquery: () => {
    throw unsupported('subquery here');
  },
};

function limitSql(stmt: Node, top: boolean): string[] {
  const { count, offset } = limitOf(stmt);
  const out: string[] = [];
  // the top level never answers more than the row limit
  const effective = count ?? (top ? 50_000 : null);
  if (effective !== null) out.push(`LIMIT ${effective}`);
  if (offset > 0) out.push(`OFFSET ${offset}`);
  return out;
}

function simple(
  stmt: Node,
  ctx: PlanContext,
  scope: Scope | null,
  positional: boolean,
  outer: Columns | null,
): Printed {
  const from: Node[] = stmt.fromClause ?? [];
  const cubes = cubeTables(ctx.model, from);
  if (cubes && !from.some((f) => usesCte(f, scope))) return translateCubeSelect(stmt, cubes, ctx, positional);
  if (stmt.distinctClause?.some((d: Node) => Object.keys(d).length > 0)) throw unsupported('DISTINCT ON');

  const relations: Relation[] = [];
  const fromSql = from.map((f) => fromItem(f, ctx, scope, relations, outer));
  const columns: Columns = { relations, parent: outer };
  const hooks: ExprHooks = {
    dialect: ctx.dialect,
    column: (fields) => resolveColumn(fields, columns),
    subquery: (select) => printQuery(select, ctx, scope, false, columns).sql,
  };
  const p = (n: Node) => printExpr(n, hooks);

  const items: { sql: string; name: string }[] = [];
  for (const t of stmt.targetList ?? []) {
    const rt = t.ResTarget;
    const fields = rt.val?.ColumnRef ? names(rt.val.ColumnRef.fields) : [];
    if (fields.at(-1) === '*') {
      const rels = fields.length === 1 ? relations : relations.filter((r) => r.alias === fields[0]);
      if (rels.length === 0) throw new SqlApiError(`Unknown table ${fields[0]}`);
      for (const r of rels)
        for (const c of r.columns) items.push({ sql: `${quote(r.alias)}.${quote(c)}`, name: c });
    } else items.push({ sql: p(rt.val), name: rt.name ?? defaultName(rt.val) });
  }
  if (items.length === 0) throw unsupported('SELECT without columns');
  const names_ = items.map((i) => i.name);
  const lines = [
    `SELECT${stmt.distinctClause ? ' DISTINCT' : ''} ${items.map((it, i) => `${it.sql} AS ${quote(positional ? `__c${i}` : it.name)}`).join(', ')}`,
  ];
  if (fromSql.length > 0) lines.push(`FROM ${fromSql.join(', ')}`);
  if (stmt.whereClause) lines.push(`WHERE ${p(stmt.whereClause)}`);
  if (stmt.groupClause) {
    if (stmt.groupDistinct) throw unsupported('GROUP BY DISTINCT');
    const byOutput = (g: Node) => {
      const f = g.ColumnRef ? names(g.ColumnRef.fields) : [];
      const i = f.length === 1 && !isInput(f[0], relations) ? items.findIndex((it) => it.name === f[0]) : -1;
      return i >= 0 ? String(i + 1) : groupItem(g, p);
    };
    lines.push(`GROUP BY ${stmt.groupClause.map(byOutput).join(', ')}`);
  }
  if (stmt.havingClause) lines.push(`HAVING ${p(stmt.havingClause)}`);
  if (stmt.sortClause) {
    // an output name in ORDER BY means that output column (PostgreSQL's rule): print its position
    const order = (n: Node) => {
      const f = n.ColumnRef ? names(n.ColumnRef.fields) : [];
      const i = f.length === 1 ? names_.indexOf(f[0]) : -1;
      if (i < 0) return p(n);
      return positional ? String(i + 1) : quote(f[0]);
    };
    lines.push(`ORDER BY ${stmt.sortClause.map((s: Node) => sortItem(s.SortBy, order)).join(', ')}`);
  }
  lines.push(...limitSql(stmt, positional));
  return { sql: lines.join('\n'), columns: names_, types: names_.map(() => null) };
}

function groupItem(g: Node, p: (n: Node) => string): string {
  const kind = kindOf(g);
  if (kind === 'GroupingSet') throw unsupported('GROUPING SETS, ROLLUP and CUBE');
  return p(g);
}

function isInput(name: string, relations: readonly Relation[]): boolean {
  return relations.some((r) => r.columns.includes(name));
}

function usesCte(f: Node, scope: Scope | null): boolean {
  if (f.RangeVar) return !f.RangeVar.schemaname && findCte(scope, f.RangeVar.relname) !== null;
  if (f.JoinExpr) return usesCte(f.JoinExpr.larg, scope) || usesCte(f.JoinExpr.rarg, scope);
  return false;
}

function fromItem(
  f: Node,
  ctx: PlanContext,
  scope: Scope | null,
  relations: Relation[],
  outer: Columns | null,
): string {
  const kind = kindOf(f);
  const e = f[kind];
  switch (kind) {
    case 'RangeVar': {
      const full = [e.catalogname, e.schemaname, e.relname].filter(Boolean).join('.');
      const cte = e.schemaname || e.catalogname ? null : findCte(scope, e.relname);
      if (!cte) {
        if (cubeOfRangeVar(ctx.model, e)) {
          throw unsupported(
            `cube ${e.relname} joined with a CTE or subquery; select from the cube in a subquery first`,
          );
        }
        throw unsupported(`table ${full} is not a cube, view or CTE`);
      }
      const alias = e.alias?.aliasname ?? e.relname;
      relations.push({ alias, columns: renamed(e.alias, cte) });
      return e.alias ? `${quote(e.relname)} AS ${aliasSql(e.alias)}` : quote(e.relname);
    }
    case 'RangeSubselect': {
      if (e.lateral) throw unsupported('LATERAL subqueries');
      if (!e.alias) throw unsupported('subquery in FROM without an alias');
      const printed = printQuery(e.subquery.SelectStmt, ctx, scope, false, null);
      relations.push({ alias: e.alias.aliasname, columns: renamed(e.alias, printed.columns) });
      return `(${printed.sql}) AS ${aliasSql(e.alias)}`;
    }
    case 'JoinExpr': {
      const types: Record<string, string> = {
        JOIN_INNER: 'JOIN',
        JOIN_LEFT: 'LEFT JOIN',
        JOIN_RIGHT: 'RIGHT JOIN',
        JOIN_FULL: 'FULL JOIN',
      };
      const type = types[e.jointype];
      if (!type || e.isNatural) throw unsupported(`${e.isNatural ? 'NATURAL' : e.jointype} join`);
      if (e.usingClause) throw unsupported('JOIN ... USING; use JOIN ... ON');
      if (e.alias) throw unsupported('alias on a join');
      const left = fromItem(e.larg, ctx, scope, relations, outer);
      const right = fromItem(e.rarg, ctx, scope, relations, outer);
      if (!e.quals) return `${left} ${type === 'JOIN' ? 'CROSS JOIN' : type} ${right}`;
      const cols: Columns = { relations, parent: outer };
      const on = printExpr(e.quals, {
        column: (fields) => resolveColumn(fields, cols),
        subquery: () => {
          throw unsupported('subquery in a join condition');
        },
      });
      return `${left} ${type} ${right} ON ${on}`;
    }
    case 'RangeFunction': {
      const call = e.functions?.[0]?.List?.items?.[0]?.FuncCall;
      const name = call ? names(call.funcname).join('.') : 'table function';
      throw unsupported(`function ${name} is not allowed in FROM`);
    }
    default:
      throw unsupported(`${kind} in FROM`);
  }
}

function renamed(alias: Node | undefined, columns: readonly string[]): readonly string[] {
  if (!alias?.colnames) return columns;
  const list = names(alias.colnames);
  if (list.length > columns.length)
    throw new SqlApiError(`alias ${alias.aliasname} has more columns than its table`);
  return [...list, ...columns.slice(list.length)];
}

function aliasSql(alias: Node): string {
  const cols = alias.colnames ? `(${names(alias.colnames).map(quote).join(', ')})` : '';
  return `${quote(alias.aliasname)}${cols}`;
}

function resolveColumn(fields: string[], scope: Columns): string {
  for (let s: Columns | null = scope; s; s = s.parent) {
    if (fields.length === 2) {
      const rel = s.relations.find((r) => r.alias === fields[0]);
      if (rel) {
        if (!rel.columns.includes(fields[1]))
          throw new SqlApiError(`column ${fields.join('.')} does not exist`);
        return `${quote(fields[0])}.${quote(fields[1])}`;
      }
    } else {
      const hits = s.relations.filter((r) => r.columns.includes(fields[0]));
      if (hits.length > 1) throw new SqlApiError(`column ${fields[0]} is ambiguous`);
      if (hits.length === 1) return quote(fields[0]);
    }
  }
  if (fields[0].toLowerCase() === '__user' || fields[1]?.toLowerCase() === '__user')
    throw unsupported('__user is not supported');
  throw new SqlApiError(`column ${fields.join('.')} does not exist`);
}
