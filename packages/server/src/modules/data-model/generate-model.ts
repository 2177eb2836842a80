import { stringify } from 'yaml';
import type { IntrospectedColumn, IntrospectedTable } from '../../datasources/introspect.ts';

/**
 * A starting data model from a warehouse's tables (Cube's own scaffolding does the same): one
 * Cube-compatible YAML file per table, each column a dimension typed from its column type, the
 * primary key marked, a `count` measure and a sum per numeric column, and a `many_to_one` join for
 * every foreign key to another chosen table. A starting point to edit, not a finished model.
 */
export interface GeneratedFile {
  path: string;
  content: string;
}

type DimensionType = 'string' | 'number' | 'time' | 'boolean';

/** The dimension type of an engine type name (PostgreSQL's and DuckDB's spellings); null: skipped. */
export function dimensionType(columnType: string): DimensionType | null {
  const t = columnType.toLowerCase();
  if (/\[\]$|^(json|jsonb|bytea|blob|struct|map|union|list)\b|\[/.test(t)) return null;
  if (/^bool/.test(t)) return 'boolean';
  if (/^(date|timestamp|datetime)/.test(t)) return 'time';
  if (/^(time|interval)\b/.test(t)) return 'string';
  if (
    /^(smallint|integer|int|bigint|hugeint|tinyint|ubigint|uinteger|usmallint|utinyint|uhugeint|int2|int4|int8|numeric|decimal|real|double|float|money)/.test(
      t,
    )
  )
    return 'number';
  return 'string';
}

/** An identifier Cube accepts for a cube or member: letters, digits, underscores, not first a digit. */
export function memberName(raw: string): string {
  const name = raw
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return /^[a-z_]/.test(name) ? name : `_${name || 'column'}`;
}

/** A column or table as SQL text: bare when it is a plain lower-case name, else double-quoted. */
function quote(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

function unique(base: string, taken: Set<string>): string {
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  taken.add(name);
  return name;
}

export function generateModel(tables: readonly IntrospectedTable[]): GeneratedFile[] {
  const cubeNames = new Set<string>();
  const cubeOf = new Map<string, string>();
  const keyOf = (schema: string, table: string) => JSON.stringify([schema, table]);
  for (const t of tables) cubeOf.set(keyOf(t.schema, t.name), unique(memberName(t.name), cubeNames));
  return tables.map((table) => {
    const cube = cubeOf.get(keyOf(table.schema, table.name))!;
    const members = new Set<string>(['count']);
    const columns = table.columns
      .map((c) => ({ column: c, type: dimensionType(c.type) }))
      .filter((c): c is { column: IntrospectedColumn; type: DimensionType } => c.type !== null);
    const dimensionOf = new Map<string, string>();
    const dimensions = columns.map(({ column, type }) => {
      const name = unique(memberName(column.name), members);
      dimensionOf.set(column.name, name);
      return {
        name,
        sql: quote(column.name),
        type,
        ...(column.primaryKey ? { primary_key: true } : {}),
      };
    });
    const keyColumns = new Set(table.foreignKeys.flatMap((fk) => fk.columns));
    const sums = columns
      .filter(({ column, type }) => type === 'number' && !column.primaryKey && !keyColumns.has(column.name))
      .map(({ column }) => ({
        name: unique(`total_${memberName(column.name)}`, members),
        type: 'sum',
        sql: quote(column.name),
      }));
    const joins = table.foreignKeys.flatMap((fk) => {
      const target = cubeOf.get(keyOf(fk.referencedSchema, fk.referencedTable));
      if (!target || fk.columns.length !== fk.referencedColumns.length) return [];
      const on = fk.columns
        .map((c, i) => `{CUBE}.${quote(c)} = {${target}}.${quote(fk.referencedColumns[i]!)}`)
        .join(' AND ');
      return [{ name: target, relationship: 'many_to_one', sql: on }];
    });
    const body = {
      cubes: [
        {
          name: cube,
          sql_table: `${quote(table.schema)}.${quote(table.name)}`,
          ...(joins.length > 0 ? { joins } : {}),
          measures: [{ name: 'count', type: 'count' }, ...sums],
          dimensions,
        },
      ],
    };
    const header = `# Generated from ${table.schema}.${table.name}: a starting point, edit freely.\n`;
    return { path: `model/${cube}.yml`, content: header + stringify(body, { lineWidth: 0 }) };
  });
}
