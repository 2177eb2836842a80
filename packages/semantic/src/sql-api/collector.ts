import type { CubeQuery, QueryFilter } from '../query/types.ts';
import { constValue, type Node, names, quote, unsupported } from './ast.ts';
import { SQL_API_ROW_LIMIT } from './context.ts';
import type { ExprHooks } from './expr.ts';
import type { MemberColumn, MemberResolver } from './tables.ts';

const GRANULARITIES = new Set(['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year']);

/** Aggregate function -> measure types it may stand for (Cube's SQL API "aggregate functions" table). */
const AGGREGATES: Record<string, readonly string[]> = {
  count: ['count'],
  'count distinct': ['count_distinct', 'count_distinct_approx'],
  sum: ['sum'],
  avg: ['avg'],
  min: ['min'],
  max: ['max'],
};

interface Registered {
  readonly member: MemberColumn;
  readonly kind: 'dimension' | 'measure' | 'timeDimension';
  readonly granularity: string | null;
}

/**
 * Members one SELECT over cubes uses, gathered while its expressions are printed: dimensions,
 * measures (MEASURE(x) or a matching aggregate), time dimensions (DATE_TRUNC). Once the Cube
 * query is compiled, `bind` maps each member to its SQL alias and the second printing pass
 * references `"__q".<alias>`.
 */
export class SemanticCollector {
  private readonly members = new Map<string, Registered>();
  private aliases: Map<string, string> | null = null;

  constructor(private readonly resolver: MemberResolver) {}

  readonly hooks: ExprHooks = {
    column: (fields) => {
      const m = this.resolver.resolve(fields);
      if (m.kind === 'segment') throw unsupported(`segment ${m.path} outside WHERE`);
      return this.ref(this.add(m, m.kind, null));
    },
    func: (call, name) => {
      const key = this.claim(call, name);
      return key === null ? undefined : this.ref(key);
    },
    subquery: () => {
      throw unsupported('subquery inside a SELECT over a cube; move it to an outer query');
    },
  };

  /** The member a WHERE/HAVING operand stands for, or null for constants and other expressions. */
  operand(node: Node): MemberColumn | null {
    if (node.ColumnRef) return this.resolver.resolve(names(node.ColumnRef.fields));
    if (node.FuncCall) {
      const key = this.claim(node.FuncCall, names(node.FuncCall.funcname).at(-1)!.toLowerCase());
      if (key !== null) {
        const r = this.members.get(key)!;
        if (r.kind === 'timeDimension') throw unsupported('DATE_TRUNC in WHERE; compare the time column');
        return r.member;
      }
    }
    return null;
  }

  /** The member key of an expression that is a member as is, else null. */
  direct(node: Node): string | null {
    if (node.ColumnRef) {
      const m = this.resolver.resolve(names(node.ColumnRef.fields));
      if (m.kind === 'segment') throw unsupported(`segment ${m.path} outside WHERE`);
      return this.add(m, m.kind, null);
    }
    if (node.FuncCall) return this.claim(node.FuncCall, names(node.FuncCall.funcname).at(-1)!.toLowerCase());
    return null;
  }

  group(key: string): void {
    if (!this.members.has(key)) throw unsupported(`GROUP BY ${key}`);
  }

  isMeasure(key: string): boolean {
    return this.members.get(key)?.kind === 'measure';
  }

  hasMeasures(): boolean {
    return [...this.members.values()].some((r) => r.kind === 'measure');
  }

  typeOf(key: string): string {
    const r = this.members.get(key)!;
    return r.kind === 'timeDimension' ? 'time' : r.member.type;
  }

  ref(key: string): string {
    if (!this.aliases) return `"__q".${quote(`?${key}`)}`;
    const alias = this.aliases.get(key);
    if (!alias) throw new Error(`no column for ${key}`);
    return `"__q".${quote(alias)}`;
  }

  bind(aliases: Readonly<Record<string, string>>): void {
    this.aliases = new Map(Object.entries(aliases).map(([alias, key]) => [key, alias]));
  }

  query(parts: {
    filters: QueryFilter[];
    segments: string[];
    order: [string, 'asc' | 'desc'][];
    limit: number | null;
    offset: number;
    ungrouped: boolean;
    timezone: string;
  }): CubeQuery {
    const all = [...this.members.values()];
    if (all.length === 0) throw unsupported('SELECT over a cube without any of its columns');
    return {
      measures: all.filter((r) => r.kind === 'measure').map((r) => r.member.path),
      dimensions: all.filter((r) => r.kind === 'dimension').map((r) => r.member.path),
      timeDimensions: all
        .filter((r) => r.kind === 'timeDimension')
        .map((r) => ({ dimension: r.member.path, granularity: r.granularity! })),
      segments: [...new Set(parts.segments)],
      filters: parts.filters,
      order: parts.order,
      limit: Math.min(parts.limit ?? SQL_API_ROW_LIMIT, SQL_API_ROW_LIMIT),
      ...(parts.offset > 0 ? { offset: parts.offset } : {}),
      // rows of a SELECT without aggregation, keys or not, as Cube's SQL API reads them
      ...(parts.ungrouped ? { ungrouped: true, allowUngroupedWithoutPrimaryKey: true } : {}),
      timezone: parts.timezone,
    };
  }

  private add(m: MemberColumn, kind: Registered['kind'], granularity: string | null): string {
    const key = granularity ? `${m.path}.${granularity}` : m.path;
    if (!this.members.has(key)) this.members.set(key, { member: m, kind, granularity });
    return key;
  }

  /** MEASURE(x), an aggregate matching x's measure type, or DATE_TRUNC('unit', time); else null. */
  private claim(call: Node, name: string): string | null {
    if (call.over) return null;
    const args: Node[] = call.args ?? [];
    if (name === 'measure') {
      const m = args.length === 1 && args[0].ColumnRef ? this.column(args[0]) : null;
      if (m?.kind !== 'measure') throw unsupported('MEASURE() takes one measure column');
      return this.add(m, 'measure', null);
    }
    if (name === 'date_trunc' && args.length === 2 && args[0].A_Const && args[1].ColumnRef) {
      const m = this.column(args[1]);
      if (m.kind !== 'dimension' || m.type !== 'time') return null;
      const unit = String(constValue(args[0].A_Const)).toLowerCase();
      if (!GRANULARITIES.has(unit)) throw unsupported(`DATE_TRUNC unit '${unit}'`);
      return this.add(m, 'timeDimension', unit);
    }
    if (['count', 'sum', 'avg', 'min', 'max'].includes(name)) return this.aggregate(call, name, args);
    if (names(call.funcname).length === 1 && isAggregateName(name))
      throw unsupported(`aggregate ${name.toUpperCase()} over cube columns; use it in an outer query`);
    return null;
  }

  private aggregate(call: Node, name: string, args: Node[]): string {
    const fn = name.toUpperCase();
    if (call.agg_filter) throw unsupported(`${fn}(...) FILTER over a cube; use a filtered measure`);
    if (call.agg_star) {
      if (name !== 'count') throw unsupported(`${fn}(*)`);
      return this.add(this.resolver.countMeasure(), 'measure', null);
    }
    const m = args.length === 1 && args[0].ColumnRef ? this.column(args[0]) : null;
    if (!m) throw unsupported(`${fn} over an expression; aggregate a measure or use an outer query`);
    if (m.kind !== 'measure') {
      throw unsupported(`${fn}(${m.name}): ${m.path} is a dimension; only measures can be aggregated`);
    }
    const kind = call.agg_distinct ? `${name} distinct` : name;
    if (!AGGREGATES[kind]?.includes(m.type)) {
      throw unsupported(
        `${fn}(${call.agg_distinct ? 'DISTINCT ' : ''}${m.name}) does not match measure ${m.path} of type ${m.type}; use MEASURE(${m.name})`,
      );
    }
    return this.add(m, 'measure', null);
  }

  private column(node: Node): MemberColumn {
    return this.resolver.resolve(names(node.ColumnRef.fields));
  }
}

function isAggregateName(name: string): boolean {
  return [
    'stddev',
    'stddev_pop',
    'stddev_samp',
    'variance',
    'var_pop',
    'var_samp',
    'bool_and',
    'bool_or',
  ].includes(name);
}
