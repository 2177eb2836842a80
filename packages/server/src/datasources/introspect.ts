import type { DataSourceSettings } from '../db/schema.ts';
import type { Driver } from './driver.ts';

/** A warehouse's tables as a model generator needs them: columns with types, keys, references. */
export interface IntrospectedColumn {
  name: string;
  /** The engine's own type name (`integer`, `character varying(40)`, `TIMESTAMP`). */
  type: string;
  nullable: boolean;
  primaryKey: boolean;
}

export interface IntrospectedForeignKey {
  columns: string[];
  referencedSchema: string;
  referencedTable: string;
  referencedColumns: string[];
}

export interface IntrospectedTable {
  schema: string;
  name: string;
  columns: IntrospectedColumn[];
  foreignKeys: IntrospectedForeignKey[];
}

interface ColumnRow {
  schema: string;
  table: string;
  column: string;
  type: string;
  nullable: boolean;
}

interface KeyRow {
  schema: string;
  table: string;
  kind: 'p' | 'f';
  columns: string[];
  ref_schema: string | null;
  ref_table: string | null;
  ref_columns: string[] | null;
}

/**
 * The catalogue queries of each kind: the tables and columns the connection may see, and their
 * primary and foreign keys. PostgreSQL's `pg_catalog` keeps a foreign key's column order (the
 * information schema loses it for composite keys); DuckDB's `duckdb_constraints()` does too.
 */
const catalogue: Record<DataSourceSettings['type'], { columns: string; keys: string }> = {
  postgres: {
    columns: `
      SELECT n.nspname::text AS schema, c.relname::text AS table, a.attname::text AS column,
             format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f')
        AND n.nspname NOT IN ('pg_catalog', 'information_schema')
        AND n.nspname NOT LIKE 'pg\\_%'
        AND NOT c.relispartition
      ORDER BY 1, 2, a.attnum`,
    keys: `
      SELECT n.nspname::text AS schema, c.relname::text AS table, k.contype::text AS kind,
             ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(num, i)
                   JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.num ORDER BY u.i) AS columns,
             fn.nspname::text AS ref_schema, fc.relname::text AS ref_table,
             ARRAY(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY u(num, i)
                   JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.num ORDER BY u.i) AS ref_columns
      FROM pg_constraint k
      JOIN pg_class c ON c.oid = k.conrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_class fc ON fc.oid = k.confrelid
      LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace
      WHERE k.contype IN ('p', 'f')
        AND n.nspname NOT IN ('pg_catalog', 'information_schema')
        AND n.nspname NOT LIKE 'pg\\_%'
      ORDER BY 1, 2, k.conname`,
  },
  duckdb: {
    columns: `
      SELECT table_schema AS schema, table_name AS "table", column_name AS "column",
             data_type AS type, is_nullable = 'YES' AS nullable
      FROM information_schema.columns
      WHERE table_catalog = current_database()
        AND table_schema NOT IN ('information_schema', 'pg_catalog')
      ORDER BY table_schema, table_name, ordinal_position`,
    keys: `
      SELECT schema_name AS schema, table_name AS "table",
             CASE constraint_type WHEN 'PRIMARY KEY' THEN 'p' ELSE 'f' END AS kind,
             constraint_column_names AS columns,
             CASE WHEN constraint_type = 'FOREIGN KEY' THEN schema_name END AS ref_schema,
             referenced_table AS ref_table, referenced_column_names AS ref_columns
      FROM duckdb_constraints()
      WHERE database_name = current_database()
        AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')
      ORDER BY schema_name, table_name, constraint_index`,
  },
};

/** Every table and view the connection can see, with columns, primary and foreign keys. */
export async function introspect(
  driver: Driver,
  type: DataSourceSettings['type'],
): Promise<IntrospectedTable[]> {
  const queries = catalogue[type];
  const columns = (await driver.query(queries.columns, [])) as unknown as ColumnRow[];
  const keys = (await driver.query(queries.keys, [])) as unknown as KeyRow[];
  const tables = new Map<string, IntrospectedTable>();
  const keyOf = (schema: string, table: string) => JSON.stringify([schema, table]);
  for (const c of columns) {
    const key = keyOf(c.schema, c.table);
    let table = tables.get(key);
    if (!table) {
      table = { schema: c.schema, name: c.table, columns: [], foreignKeys: [] };
      tables.set(key, table);
    }
    table.columns.push({ name: c.column, type: c.type, nullable: c.nullable === true, primaryKey: false });
  }
  for (const k of keys) {
    const table = tables.get(keyOf(k.schema, k.table));
    if (!table) continue;
    if (k.kind === 'p') {
      for (const col of table.columns) if (k.columns.includes(col.name)) col.primaryKey = true;
    } else if (k.ref_table) {
      table.foreignKeys.push({
        columns: [...k.columns],
        referencedSchema: k.ref_schema ?? k.schema,
        referencedTable: k.ref_table,
        referencedColumns: [...(k.ref_columns ?? [])],
      });
    }
  }
  return [...tables.values()];
}
