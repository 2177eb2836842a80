import { type Driver, StatementRejectedError, WarehouseUnavailableError } from './driver.ts';
import type { Catalogue } from './kinds/kind.ts';

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
  /** A boolean, or 0/1 where the engine has no boolean type. */
  nullable: boolean | number;
}

interface KeyRow {
  schema: string;
  table: string;
  /**
   * The constraint's name, where the engine gives a key a column a row (Redshift's information
   * schema, no arrays there): rows of one name are one key, their columns in row order.
   */
  name?: string;
  kind: 'p' | 'f';
  /** An array, or its JSON text where the engine aggregates to JSON (MySQL's JSON_ARRAYAGG). */
  columns: string[] | string;
  ref_schema: string | null;
  ref_table: string | null;
  ref_columns: string[] | string | null;
}

const list = (v: string[] | string | null): string[] => (typeof v === 'string' ? JSON.parse(v) : (v ?? []));

/** Rows of one named key joined into one key; rows without a name are whole keys already. */
function merged(rows: KeyRow[]): KeyRow[] {
  const out: KeyRow[] = [];
  const byName = new Map<string, { row: KeyRow; columns: string[]; refs: string[] }>();
  const add = (to: string[], value: string | null) => {
    if (value !== null && !to.includes(value)) to.push(value);
  };
  for (const row of rows) {
    if (row.name === undefined) {
      out.push(row);
      continue;
    }
    const key = JSON.stringify([row.schema, row.table, row.name]);
    let entry = byName.get(key);
    if (!entry) {
      entry = { row, columns: [], refs: [] };
      byName.set(key, entry);
      out.push(row);
    }
    add(entry.columns, row.columns as string);
    add(entry.refs, row.ref_columns as string | null);
  }
  for (const { row, columns, refs } of byName.values()) {
    row.columns = columns;
    row.ref_columns = refs;
  }
  return out;
}

/** Every table and view the connection can see, with columns, primary and foreign keys. */
export async function introspect(driver: Driver, queries: Catalogue): Promise<IntrospectedTable[]> {
  const ask = async (which: 'columns' | 'keys') => {
    try {
      return await driver.query(queries[which], []);
    } catch (error) {
      const fallback = queries.fallback?.[which];
      const refused =
        error instanceof StatementRejectedError ||
        (error instanceof WarehouseUnavailableError && error.reason === 'permission');
      if (!fallback || !refused) throw error;
      return driver.query(fallback, []);
    }
  };
  const columns = (await ask('columns')) as unknown as ColumnRow[];
  const keys = merged((await ask('keys')) as unknown as KeyRow[]);
  const tables = new Map<string, IntrospectedTable>();
  const keyOf = (schema: string, table: string) => JSON.stringify([schema, table]);
  for (const c of columns) {
    const key = keyOf(c.schema, c.table);
    let table = tables.get(key);
    if (!table) {
      table = { schema: c.schema, name: c.table, columns: [], foreignKeys: [] };
      tables.set(key, table);
    }
    table.columns.push({
      name: c.column,
      type: c.type,
      nullable: c.nullable === true || c.nullable === 1,
      primaryKey: false,
    });
  }
  for (const k of keys) {
    const table = tables.get(keyOf(k.schema, k.table));
    if (!table) continue;
    if (k.kind === 'p') {
      const columns = list(k.columns);
      for (const col of table.columns) if (columns.includes(col.name)) col.primaryKey = true;
    } else if (k.ref_table) {
      table.foreignKeys.push({
        columns: list(k.columns),
        referencedSchema: k.ref_schema ?? k.schema,
        referencedTable: k.ref_table,
        referencedColumns: list(k.ref_columns),
      });
    }
  }
  return [...tables.values()];
}
