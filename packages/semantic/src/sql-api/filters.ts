import type { QueryFilter } from '../query/types.ts';
import { type ConstValue, kindOf, literal, type Node, names, unsupported } from './ast.ts';
import type { MemberColumn } from './tables.ts';

/** WHERE and HAVING of a SELECT over cubes, as Cube query filters and segments. */
export interface Conditions {
  readonly filters: QueryFilter[];
  readonly segments: string[];
}

type Operand = (node: Node) => MemberColumn | null;

const FLIP: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '=': '=', '<>': '<>' };
const NEGATE: Record<string, string> = { '=': '<>', '<>': '=', '<': '>=', '<=': '>', '>': '<=', '>=': '<' };
const OPERATOR: Record<string, string> = {
  '=': 'equals',
  '<>': 'notEquals',
  '<': 'lt',
  '<=': 'lte',
  '>': 'gt',
  '>=': 'gte',
};

/**
 * Translates a condition with SQL's meaning, not Cube's looser one: `x <> v` keeps NULL rows out
 * (Cube's notEquals keeps them in, so `set` is added), comparisons on time dimensions compare
 * instants (gt/gte/lt/lte, not Cube's day-granular afterDate/beforeDate), and BETWEEN is inclusive
 * at both ends. Segments are boolean columns: `WHERE completed` or `completed = true`, only as
 * top-level AND terms, since Cube cannot OR or negate a segment.
 */
export function translateConditions(node: Node | undefined, operand: Operand): Conditions {
  const out: Conditions = { filters: [], segments: [] };
  if (!node) return out;
  const terms = node.BoolExpr?.boolop === 'AND_EXPR' ? node.BoolExpr.args : [node];
  for (const term of terms) {
    const segment = segmentOf(term, operand);
    if (segment) out.segments.push(segment);
    else out.filters.push(condition(term, operand, false));
  }
  return out;
}

function segmentOf(term: Node, operand: Operand): string | null {
  const direct = operand(term);
  if (direct?.kind === 'segment') return direct.path;
  const e = term.A_Expr;
  if (e?.kind === 'AEXPR_OP' && names(e.name)[0] === '=') {
    const m = operand(e.lexpr);
    if (m?.kind === 'segment') {
      if (literal(e.rexpr)?.value !== true)
        throw unsupported(`segment ${m.path} compared with anything but true`);
      return m.path;
    }
  }
  return null;
}

function condition(node: Node, operand: Operand, negated: boolean): QueryFilter {
  const kind = kindOf(node);
  const e = node[kind];
  if (kind === 'BoolExpr') {
    if (e.boolop === 'NOT_EXPR') return condition(e.args[0], operand, !negated);
    const items = e.args.map((a: Node) => condition(a, operand, negated));
    return (e.boolop === 'AND_EXPR') !== negated ? { and: items } : { or: items };
  }
  if (kind === 'NullTest') {
    const m = column(e.arg, operand, 'IS NULL');
    const isNull = (e.nulltesttype === 'IS_NULL') !== negated;
    return { member: m.path, operator: isNull ? 'notSet' : 'set' };
  }
  if (kind === 'ColumnRef') {
    const m = column(node, operand, 'a boolean condition');
    if (m.kind === 'segment') throw unsupported(`segment ${m.path} inside OR or NOT`);
    if (m.type !== 'boolean') throw unsupported(`column ${m.path} used as a condition`);
    return { member: m.path, operator: 'equals', values: [negated ? 'false' : 'true'] };
  }
  if (kind === 'A_Expr') return aExpr(e, operand, negated);
  if (kind === 'SubLink') throw unsupported('subquery in WHERE over a cube; filter in an outer query');
  throw unsupported(`${kind} in WHERE over a cube`);
}

function aExpr(e: Node, operand: Operand, negated: boolean): QueryFilter {
  const op = names(e.name)[0];
  switch (e.kind) {
    case 'AEXPR_OP': {
      let left = e.lexpr;
      let right = e.rexpr;
      let sqlOp = op === '!=' ? '<>' : op;
      if (!(sqlOp in FLIP)) throw unsupported(`operator ${op} in WHERE over a cube`);
      if (!operand(left) && operand(right)) {
        [left, right] = [right, left];
        sqlOp = FLIP[sqlOp];
      }
      const m = column(left, operand, `operator ${op}`);
      const v = value(right, m, `operator ${op}`);
      if (v === null) throw unsupported(`comparison with NULL (use IS NULL)`);
      const effective = negated ? NEGATE[sqlOp] : sqlOp;
      return sqlFilter(m, OPERATOR[effective], [v]);
    }
    case 'AEXPR_IN': {
      const m = column(e.lexpr, operand, 'IN');
      const values = e.rexpr.List?.items.map((n: Node) => value(n, m, 'IN'));
      if (!values) throw unsupported('IN over a subquery in WHERE over a cube');
      if (values.includes(null)) throw unsupported('NULL inside IN (...)');
      const isIn = (op === '=') !== negated;
      return sqlFilter(m, isIn ? 'in' : 'notIn', values);
    }
    case 'AEXPR_LIKE':
    case 'AEXPR_ILIKE': {
      const m = column(e.lexpr, operand, 'LIKE');
      const pattern = value(e.rexpr, m, 'LIKE');
      if (typeof pattern !== 'string') throw unsupported('LIKE without a string pattern');
      const positive = !op.startsWith('!') !== negated;
      return like(m, pattern, positive);
    }
    case 'AEXPR_BETWEEN':
    case 'AEXPR_NOT_BETWEEN': {
      const m = column(e.lexpr, operand, 'BETWEEN');
      const [a, b] = e.rexpr.List.items.map((n: Node) => value(n, m, 'BETWEEN'));
      const inside = (e.kind === 'AEXPR_BETWEEN') !== negated;
      return inside
        ? { and: [sqlFilter(m, 'gte', [a]), sqlFilter(m, 'lte', [b])] }
        : { or: [sqlFilter(m, 'lt', [a]), sqlFilter(m, 'gt', [b])] };
    }
    default:
      throw unsupported(
        `operator ${op} (${String(e.kind).replace('AEXPR_', '').toLowerCase()}) in WHERE over a cube`,
      );
  }
}

/** Negative Cube operators keep NULLs; SQL's do not: add `set` to keep SQL's meaning. */
function sqlFilter(m: MemberColumn, operator: string, values: ConstValue[]): QueryFilter {
  const f: QueryFilter = { member: m.path, operator, values: values.map((v) => String(v)) };
  if (operator === 'notEquals' || operator === 'notIn' || operator.startsWith('not'))
    return { and: [f, { member: m.path, operator: 'set' }] };
  return f;
}

/** `%x%` contains, `x%` startsWith, `%x` endsWith, no wildcard equals; anything else is refused. */
function like(m: MemberColumn, pattern: string, positive: boolean): QueryFilter {
  const starts = pattern.startsWith('%');
  const ends = pattern.endsWith('%') && pattern.length > 1;
  const core = pattern.slice(starts ? 1 : 0, ends ? -1 : undefined);
  if (/[%_\\]/.test(core)) throw unsupported(`LIKE pattern '${pattern}' (only %x%, x%, %x are supported)`);
  const op = starts && ends ? 'contains' : ends ? 'startsWith' : starts ? 'endsWith' : 'equals';
  const operator = positive ? op : op === 'equals' ? 'notEquals' : `not${op[0].toUpperCase()}${op.slice(1)}`;
  return sqlFilter(m, operator, [core]);
}

function column(node: Node, operand: Operand, where: string): MemberColumn {
  const m = operand(node);
  if (!m) throw unsupported(`${where} on an expression that is not a cube column`);
  return m;
}

function value(node: Node, m: MemberColumn, where: string): ConstValue {
  const v = literal(node);
  if (!v) throw unsupported(`${where} on ${m.path} with a value that is not a constant`);
  if (typeof v.value === 'string' && m.type === 'time') return v.value.trim().replace(' ', 'T');
  return v.value;
}
