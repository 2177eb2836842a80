import type { Column, Row, Table } from '../dashboard/rows.ts';
import { toTable } from '../dashboard/rows.ts';
import { type Catalogue, type CatalogueMember, tablesIn } from './catalogue.ts';

/** A `/v1/cubesql` column: its name and Cube's SQL-API type (`Utf8`, `Int64`, `Float64`, `Timestamp`, `Boolean`). */
export interface SqlColumn {
  name: string;
  column_type: string;
}

/** `FN(member) AS alias` and `DATE_TRUNC('grain', member) AS alias`, the aliases a query gives members. */
const aggregateAlias =
  /\b(?:measure|sum|avg|min|max|count)\s*\(\s*(?:distinct\s+)?(?:[A-Za-z_]\w*\.)?([A-Za-z_]\w*)\s*\)\s+(?:as\s+)?"?([A-Za-z_]\w*)"?/gi;
const truncAlias =
  /\bdate_trunc\s*\(\s*'(\w+)'\s*,\s*(?:[A-Za-z_]\w*\.)?([A-Za-z_]\w*)\s*\)\s+(?:as\s+)?"?([A-Za-z_]\w*)"?/gi;

/**
 * A SQL-API answer as a table that reads like the model: rows keyed by column (values as the data
 * API sends them, numbers made numbers), and each column that stands for a member of a table the
 * query reads (by its name, or as the alias of `MEASURE(member)`, `SUM(member)`, ...,
 * `DATE_TRUNC('month', member)`) titled and formatted as that member (a currency measure with its
 * sign); `Timestamp` columns read as dates. Other columns keep their SQL names.
 */
export function sqlResultTable(
  columns: readonly SqlColumn[],
  rows: readonly unknown[][],
  sql: string,
  catalogue: Catalogue | null,
): Table {
  const data: Row[] = rows.map((row) => Object.fromEntries(columns.map((c, i) => [c.name, row[i] ?? null])));
  const table = toTable({ kind: 'sql', columns: [...columns], data, totalRows: null });
  const members = catalogue ? membersByColumn(sql, catalogue) : new Map<string, Found>();
  return {
    rows: table.rows,
    columns: table.columns.map((column, i) => describe(column, columns[i], members.get(column.name))),
  };
}

interface Found {
  member: CatalogueMember;
  grain?: string;
}

function membersByColumn(sql: string, catalogue: Catalogue): Map<string, Found> {
  const tables = tablesIn(sql, catalogue);
  const lookup = (column: string) => {
    for (const table of tables) {
      const member = table.members.find((m) => m.column === column);
      if (member) return member;
    }
    return undefined;
  };
  const found = new Map<string, Found>();
  for (const table of [...tables].reverse())
    for (const member of table.members) found.set(member.column, { member });
  for (const [, column, alias] of sql.matchAll(aggregateAlias)) {
    const member = lookup(column);
    if (member) found.set(alias, { member });
  }
  for (const [, grain, column, alias] of sql.matchAll(truncAlias)) {
    const member = lookup(column);
    if (member) found.set(alias, { member, grain: grain.toLowerCase() });
  }
  return found;
}

function describe(column: Column, sqlColumn: SqlColumn | undefined, found: Found | undefined): Column {
  const numeric = column.kind === 'number';
  const time = sqlColumn?.column_type === 'Timestamp';
  if (!found) return time ? { ...column, kind: 'time' } : column;
  const { member, grain } = found;
  const title = member.shortTitle || member.title;
  if (member.kind === 'measure' && numeric)
    return { ...column, title, kind: 'measure', ...(member.format ? { format: member.format } : {}) };
  if (time || member.type === 'time') return { ...column, title, kind: 'time', ...(grain ? { grain } : {}) };
  return { ...column, title };
}
