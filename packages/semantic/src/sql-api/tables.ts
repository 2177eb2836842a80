import type { Model } from '../model/types.ts';
import type { AccessResolution } from '../security/access.ts';
import { kindOf, type Node, names, SqlApiError, unsupported } from './ast.ts';

/** A cube or view used as a table in a FROM clause. */
export interface CubeTable {
  readonly owner: string;
  readonly alias: string;
}

/** A member as a column of a cube table. */
export interface MemberColumn {
  readonly path: string;
  readonly name: string;
  readonly kind: 'measure' | 'dimension' | 'segment';
  /** Dimension type, or the measure's type (`count`, `sum`, ...). */
  readonly type: string;
  readonly table: CubeTable;
}

export function findOwner(model: Model, name: string): string | null {
  if (model.cubes.has(name) || model.views.has(name)) return name;
  const lower = name.toLowerCase();
  const all = [...model.cubes.keys(), ...model.views.keys()].filter((n) => n.toLowerCase() === lower);
  return all.length === 1 ? all[0] : null;
}

/** The cube/view name of a RangeVar, or null when it names something else (a CTE, a table). */
export function cubeOfRangeVar(model: Model, rv: Node): string | null {
  if (rv.schemaname || rv.catalogname) return null;
  return findOwner(model, rv.relname);
}

/**
 * Tables of a FROM clause made only of cubes and views: several tables, CROSS JOIN, or
 * `JOIN ... ON a.__cubeJoinField = b.__cubeJoinField` (Cube's SQL API join syntax); the join
 * path itself comes from the data model. Returns null when the FROM clause is not of that kind.
 */
export function cubeTables(model: Model, from: readonly Node[] | undefined): CubeTable[] | null {
  if (!from || from.length === 0) return null;
  const out: CubeTable[] = [];
  const visit = (n: Node): boolean => {
    const kind = kindOf(n);
    if (kind === 'RangeVar') {
      const owner = cubeOfRangeVar(model, n.RangeVar);
      if (!owner) return false;
      out.push({ owner, alias: n.RangeVar.alias?.aliasname ?? n.RangeVar.relname });
      return true;
    }
    if (kind === 'JoinExpr') {
      const j = n.JoinExpr;
      if (!visit(j.larg) || !visit(j.rarg)) return false;
      if (j.usingClause || j.isNatural)
        throw unsupported('JOIN ... USING between cubes; use __cubeJoinField');
      if (j.quals) checkJoinCondition(j.quals);
      return true;
    }
    return false;
  };
  return from.every(visit) ? out : null;
}

function checkJoinCondition(q: Node): void {
  if (q.BoolExpr?.boolop === 'AND_EXPR') {
    for (const arg of q.BoolExpr.args) checkJoinCondition(arg);
    return;
  }
  const e = q.A_Expr;
  const field = (n: Node | undefined) => {
    const parts = n?.ColumnRef ? names(n.ColumnRef.fields) : [];
    return parts[parts.length - 1]?.toLowerCase() === '__cubejoinfield';
  };
  if (e?.kind === 'AEXPR_OP' && names(e.name)[0] === '=' && field(e.lexpr) && field(e.rexpr)) return;
  throw unsupported('join condition between cubes other than a.__cubeJoinField = b.__cubeJoinField');
}

/** Resolves column names against the cube tables of one SELECT. */
export class MemberResolver {
  constructor(
    private readonly model: Model,
    private readonly access: AccessResolution,
    readonly tables: readonly CubeTable[],
  ) {}

  resolve(fields: readonly string[]): MemberColumn {
    const name = fields[fields.length - 1];
    const lower = name.toLowerCase();
    if (lower === '__user') throw unsupported('__user is not supported');
    if (lower === '__cubejoinfield') throw unsupported('__cubeJoinField outside a join condition');
    let tables = this.tables;
    if (fields.length === 2) {
      tables = this.tables.filter(
        (t) => t.alias === fields[0] || t.alias.toLowerCase() === fields[0].toLowerCase(),
      );
      if (tables.length === 0)
        throw new SqlApiError(`Unknown table ${fields[0]} in column ${fields.join('.')}`);
    }
    const found = tables.map((t) => this.member(t, name)).filter((m) => m !== null);
    if (found.length === 0) {
      throw new SqlApiError(`Unknown column ${name} in ${tables.map((t) => t.owner).join(', ')}`);
    }
    if (found.length > 1) throw new SqlApiError(`Column ${name} is ambiguous`);
    return found[0];
  }

  /** Every dimension of a table this context may see: Cube's `SELECT *`. */
  dimensions(table: CubeTable): MemberColumn[] {
    const names = this.ownerMembers(table.owner)
      .filter((m) => m.kind === 'dimension')
      .map((m) => m.name);
    return names
      .map((n) => this.member(table, n)!)
      .filter((m) => !this.access.hiddenMembers.has(m.path) && this.isPublic(m));
  }

  /** The measure `COUNT(*)` stands for: the table's first `count` measure without filters. */
  countMeasure(): MemberColumn {
    if (this.tables.length !== 1) throw unsupported('COUNT(*) over several cubes; use MEASURE(cube.count)');
    const table = this.tables[0];
    const m = this.ownerMembers(table.owner).find(
      (x) => x.kind === 'measure' && x.type === 'count' && x.filters === 0,
    );
    if (!m) throw unsupported(`COUNT(*): ${table.owner} has no count measure`);
    return this.member(table, m.name)!;
  }

  private isPublic(m: MemberColumn): boolean {
    const view = this.model.views.get(m.table.owner);
    if (view) return view.public && (view.members.get(m.name)?.public ?? false);
    const cube = this.model.cubes.get(m.table.owner)!;
    const member = cube.dimensions.get(m.name) ?? cube.measures.get(m.name);
    return cube.public && (member?.public ?? false);
  }

  private ownerMembers(owner: string) {
    const cube = this.model.cubes.get(owner);
    if (cube) {
      return [
        ...[...cube.dimensions.values()].map((d) => ({
          name: d.name,
          kind: 'dimension',
          type: d.type,
          filters: 0,
        })),
        ...[...cube.measures.values()].map((m) => ({
          name: m.name,
          kind: 'measure',
          type: m.type,
          filters: m.filters.length,
        })),
      ];
    }
    return [...this.model.views.get(owner)!.members.values()].map((vm) => ({
      name: vm.name,
      kind: vm.kind,
      type: vm.target.kind === 'segment' ? 'boolean' : vm.target.type,
      filters: vm.target.kind === 'measure' ? vm.target.filters.length : 0,
    }));
  }

  private member(table: CubeTable, name: string): MemberColumn | null {
    const cube = this.model.cubes.get(table.owner);
    const pick = <T>(map: ReadonlyMap<string, T>): [string, T] | null => {
      if (map.has(name)) return [name, map.get(name)!];
      const hits = [...map.keys()].filter((k) => k.toLowerCase() === name.toLowerCase());
      return hits.length === 1 ? [hits[0], map.get(hits[0])!] : null;
    };
    if (cube) {
      const d = pick(cube.dimensions);
      if (d) return this.column(table, d[0], 'dimension', d[1].type);
      const m = pick(cube.measures);
      if (m) return this.column(table, m[0], 'measure', m[1].type);
      const s = pick(cube.segments);
      return s ? this.column(table, s[0], 'segment', 'boolean') : null;
    }
    const vm = pick(this.model.views.get(table.owner)!.members);
    if (!vm) return null;
    const target = vm[1].target;
    return this.column(table, vm[0], vm[1].kind, target.kind === 'segment' ? 'boolean' : target.type);
  }

  private column(table: CubeTable, name: string, kind: MemberColumn['kind'], type: string): MemberColumn {
    return { path: `${table.owner}.${name}`, name, kind, type, table };
  }
}
