/**
 * The model as the SQL editor sees it: each cube or view a table, each member a column
 * (DESIGN.md "Semantic layer and data API": `/v1/cubesql` is PostgreSQL-flavoured SQL over the
 * model's cubes and views). Built once from `/v1/meta`; completion and the result's column
 * titles and formats read it. Pure: no CodeMirror, no React.
 */

export type MemberKind = 'measure' | 'dimension' | 'segment';

export interface CatalogueMember {
  /** As written in SQL: the member's name without its table, e.g. `total_amount`. */
  column: string;
  /** `orders.total_amount`. */
  name: string;
  table: string;
  kind: MemberKind;
  /** The member's value type (`number`, `string`, `time`, `boolean`); `boolean` for a segment. */
  type: string;
  title: string;
  shortTitle: string;
  description?: string;
  /** A measure's aggregation as written (`sum`, `count`, ...). */
  aggType?: string;
  /** The model's format, when it names one (`currency`, `percent`, ...). */
  format?: string;
}

export interface CatalogueTable {
  name: string;
  title: string;
  kind: 'cube' | 'view';
  description?: string;
  members: CatalogueMember[];
}

export interface Catalogue {
  tables: CatalogueTable[];
}

/** The parts of a `/v1/meta` answer the catalogue reads (the client's `MetaResult` fits it). */
interface MetaMember {
  name: string;
  title: string;
  shortTitle: string;
  description?: string;
  type?: string;
  aggType?: string;
  format?: unknown;
}
export interface MetaLike {
  cubes: readonly {
    name: string;
    title: string;
    type: 'cube' | 'view';
    description?: string;
    measures: readonly MetaMember[];
    dimensions: readonly MetaMember[];
    segments: readonly MetaMember[];
  }[];
}

export function catalogueOf(meta: MetaLike): Catalogue {
  return {
    tables: meta.cubes.map((cube) => {
      const member = (m: MetaMember, kind: MemberKind): CatalogueMember => ({
        column: m.name.slice(m.name.indexOf('.') + 1),
        name: m.name,
        table: cube.name,
        kind,
        type: kind === 'segment' ? 'boolean' : (m.type ?? 'string'),
        title: m.title,
        shortTitle: m.shortTitle,
        ...(m.description ? { description: m.description } : {}),
        ...(m.aggType ? { aggType: m.aggType } : {}),
        ...(typeof m.format === 'string' ? { format: m.format } : {}),
      });
      return {
        name: cube.name,
        title: cube.title,
        kind: cube.type,
        ...(cube.description ? { description: cube.description } : {}),
        members: [
          ...cube.dimensions.map((m) => member(m, 'dimension')),
          ...cube.measures.map((m) => member(m, 'measure')),
          ...cube.segments.map((m) => member(m, 'segment')),
        ],
      };
    }),
  };
}

/**
 * The tables a query reads, by name, in the order they appear after FROM or JOIN (quoted or not,
 * any case); names the catalogue does not know are left out. What completion offers columns of,
 * and where the result's columns are looked up.
 */
export function tablesIn(sql: string, catalogue: Catalogue): CatalogueTable[] {
  const byName = new Map(catalogue.tables.map((t) => [t.name.toLowerCase(), t]));
  const found: CatalogueTable[] = [];
  for (const match of sql.matchAll(/\b(?:from|join)\s+(?:"([^"]+)"|([A-Za-z_][\w$]*))/gi)) {
    const table = byName.get((match[1] ?? match[2]).toLowerCase());
    if (table && !found.includes(table)) found.push(table);
  }
  return found;
}

/** A member's one-line description for completion: what it is and its type. */
export function memberDetail(member: CatalogueMember): string {
  if (member.kind === 'segment') return 'segment';
  if (member.kind === 'measure') return `measure · ${member.aggType ?? member.type}`;
  return `dimension · ${member.type}`;
}
