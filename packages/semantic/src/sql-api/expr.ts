import type { Dialect } from '../dialect/dialect.ts';
import { EXTRACT_FIELDS, functionName, OPERATORS, typeName } from './allow-list.ts';
import { constValue, kindOf, type Node, names, stringLiteral, unsupported } from './ast.ts';
import { printWindow } from './window.ts';

/** How the surrounding query resolves what an expression refers to. */
export interface ExprHooks {
  /** A column reference (`status`, `o.status`), already split into its name parts. */
  column(fields: string[]): string;
  /** Claims a function call before the default printing (semantic members); undefined = not claimed. */
  func?(call: Node, name: string): string | undefined;
  /** A subquery inside an expression (`IN (SELECT ...)`, `EXISTS`, scalar). */
  subquery(select: Node): string;
  /** The engine's differences from PostgreSQL in outer SQL (window frames, clock). */
  dialect?: Dialect;
}

/**
 * Prints an expression of outer SQL from its validated parse tree. It is an allow-list: a node
 * type, operator, function or type it does not know is refused by name, so nothing reaches the
 * engine that was not understood here. Literals are printed from their parsed values.
 */
export function printExpr(node: Node, hooks: ExprHooks): string {
  const p = (n: Node) => printExpr(n, hooks);
  const kind = kindOf(node);
  const e = node[kind];
  switch (kind) {
    case 'ColumnRef': {
      const fields = names(e.fields);
      if (fields.length > 2) throw unsupported(`qualified column ${fields.join('.')}`);
      if (fields.includes('*')) throw unsupported('* inside an expression');
      return hooks.column(fields);
    }
    case 'A_Const':
      return constSql(e);
    case 'TypeCast':
      return `CAST(${p(e.arg)} AS ${typeName(e.typeName)})`;
    case 'A_Expr':
      return aExpr(e, p);
    case 'BoolExpr': {
      const args: string[] = e.args.map((a: Node) => `(${p(a)})`);
      if (e.boolop === 'NOT_EXPR') return `NOT ${args[0]}`;
      return args.join(e.boolop === 'AND_EXPR' ? ' AND ' : ' OR ');
    }
    case 'NullTest':
      return `(${p(e.arg)}) IS ${e.nulltesttype === 'IS_NOT_NULL' ? 'NOT ' : ''}NULL`;
    case 'BooleanTest': {
      const tests: Record<string, string> = {
        IS_TRUE: 'IS TRUE',
        IS_NOT_TRUE: 'IS NOT TRUE',
        IS_FALSE: 'IS FALSE',
        IS_NOT_FALSE: 'IS NOT FALSE',
      };
      const t = tests[e.booltesttype];
      if (!t) throw unsupported(`boolean test ${e.booltesttype}`);
      return `(${p(e.arg)}) ${t}`;
    }
    case 'CaseExpr': {
      const subject = e.arg ? ` ${p(e.arg)}` : '';
      const whens = e.args.map((w: Node) => `WHEN ${p(w.CaseWhen.expr)} THEN ${p(w.CaseWhen.result)}`);
      const otherwise = e.defresult ? ` ELSE ${p(e.defresult)}` : '';
      return `CASE${subject} ${whens.join(' ')}${otherwise} END`;
    }
    case 'CoalesceExpr':
      return `COALESCE(${e.args.map(p).join(', ')})`;
    case 'MinMaxExpr':
      return `${e.op === 'IS_GREATEST' ? 'GREATEST' : 'LEAST'}(${e.args.map(p).join(', ')})`;
    case 'NullIfExpr':
      return `NULLIF(${e.args.map(p).join(', ')})`;
    case 'SQLValueFunction': {
      const fns: Record<string, string> = {
        SVFOP_CURRENT_DATE: 'CURRENT_DATE',
        SVFOP_CURRENT_TIMESTAMP: 'CURRENT_TIMESTAMP',
      };
      const f = fns[e.op];
      if (!f) throw unsupported(`${String(e.op).replace('SVFOP_', '').toLowerCase()} is not allowed`);
      if (e.op === 'SVFOP_CURRENT_TIMESTAMP' && hooks.dialect?.sqlApi?.now) return hooks.dialect.sqlApi.now;
      return f;
    }
    case 'FuncCall':
      return funcCall(e, hooks, p);
    case 'SubLink':
      return subLink(e, hooks, p);
    case 'ParamRef':
      throw unsupported('parameter placeholders ($1)');
    default:
      throw unsupported(`${kind} expressions`);
  }
}

function constSql(c: Node): string {
  const v = constValue(c);
  if (v === null) return 'NULL';
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'NULL';
  return stringLiteral(v);
}

function aExpr(e: Node, p: (n: Node) => string): string {
  const op = names(e.name)[0];
  const left = e.lexpr ? `(${p(e.lexpr)})` : '';
  const list = (n: Node) => {
    if (!n.List) throw unsupported('IN over a non-list');
    return n.List.items.map(p).join(', ');
  };
  switch (e.kind) {
    case 'AEXPR_OP':
      if (!OPERATORS.has(op)) throw unsupported(`operator ${op}`);
      return left ? `${left} ${op} (${p(e.rexpr)})` : `${op}(${p(e.rexpr)})`;
    case 'AEXPR_IN':
      return `${left} ${op === '=' ? 'IN' : 'NOT IN'} (${list(e.rexpr)})`;
    case 'AEXPR_LIKE':
    case 'AEXPR_ILIKE': {
      const not = op.startsWith('!') ? 'NOT ' : '';
      return `${left} ${not}${e.kind === 'AEXPR_LIKE' ? 'LIKE' : 'ILIKE'} (${p(e.rexpr)})`;
    }
    case 'AEXPR_BETWEEN':
    case 'AEXPR_NOT_BETWEEN': {
      const [a, b] = e.rexpr.List.items.map(p);
      return `${left} ${e.kind === 'AEXPR_BETWEEN' ? '' : 'NOT '}BETWEEN (${a}) AND (${b})`;
    }
    case 'AEXPR_NULLIF':
      return `NULLIF(${p(e.lexpr)}, ${p(e.rexpr)})`;
    case 'AEXPR_DISTINCT':
    case 'AEXPR_NOT_DISTINCT':
      return `${left} IS ${e.kind === 'AEXPR_DISTINCT' ? '' : 'NOT '}DISTINCT FROM (${p(e.rexpr)})`;
    default:
      throw unsupported(`operator ${op} (${String(e.kind).replace('AEXPR_', '').toLowerCase()})`);
  }
}

function funcCall(e: Node, hooks: ExprHooks, p: (n: Node) => string): string {
  const lowered = names(e.funcname).map((x) => x.toLowerCase());
  const claimed = hooks.func?.(e, lowered[lowered.length - 1]);
  if (claimed !== undefined) return claimed;
  const name = functionName(e.funcname);
  const now = hooks.dialect?.sqlApi?.now;
  if (now && name.toLowerCase() === 'now' && (e.args ?? []).length === 0 && !e.over) return now;
  if (e.agg_order || e.agg_within_group) throw unsupported(`ordered aggregate ${name}`);
  if (e.func_variadic) throw unsupported(`VARIADIC call of ${name}`);
  const args: Node[] = e.args ?? [];
  let call: string;
  if (name === 'extract') {
    const field = args[0]?.A_Const ? constValue(args[0].A_Const) : null;
    if (typeof field !== 'string' || !EXTRACT_FIELDS.has(field.toLowerCase()))
      throw unsupported(`EXTRACT field ${String(field)}`);
    call = `EXTRACT(${field.toLowerCase()} FROM ${p(args[1])})`;
  } else {
    const inside = e.agg_star ? '*' : `${e.agg_distinct ? 'DISTINCT ' : ''}${args.map(p).join(', ')}`;
    call = `${name}(${inside})`;
  }
  if (e.agg_filter) call += ` FILTER (WHERE ${p(e.agg_filter)})`;
  if (e.over) call += ` OVER (${printWindow(e.over, p, name, hooks.dialect)})`;
  return call;
}

function subLink(e: Node, hooks: ExprHooks, p: (n: Node) => string): string {
  if (!e.subselect?.SelectStmt) throw unsupported('subquery that is not a SELECT');
  const sub = hooks.subquery(e.subselect.SelectStmt);
  switch (e.subLinkType) {
    case 'EXISTS_SUBLINK':
      return `EXISTS (${sub})`;
    case 'EXPR_SUBLINK':
      return `(${sub})`;
    case 'ANY_SUBLINK': {
      const op = names(e.operName)[0] ?? '=';
      if (op !== '=') throw unsupported(`${op} ANY (subquery)`);
      return `(${p(e.testexpr)}) IN (${sub})`;
    }
    default:
      throw unsupported(`subquery form ${String(e.subLinkType).replace('_SUBLINK', '')}`);
  }
}
