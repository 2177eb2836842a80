import { type Node, names, unsupported } from './ast.ts';

/**
 * What outer SQL may call: plain computations that both engines (PostgreSQL, DuckDB) know and
 * that read nothing but their arguments. Anything else (file readers such as `read_csv` or
 * `pg_read_file`, settings such as `current_setting`/`set_config`, network, catalog and
 * session functions) is refused by name, because the outer SQL runs on the warehouse itself.
 */
export const AGGREGATE_FUNCTIONS = new Set([
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'stddev',
  'stddev_pop',
  'stddev_samp',
  'variance',
  'var_pop',
  'var_samp',
  'bool_and',
  'bool_or',
]);

const WINDOW_FUNCTIONS = [
  'row_number',
  'rank',
  'dense_rank',
  'percent_rank',
  'cume_dist',
  'ntile',
  'lag',
  'lead',
  'first_value',
  'last_value',
  'nth_value',
];

const SCALAR_FUNCTIONS = [
  // arithmetic
  'abs',
  'round',
  'ceil',
  'ceiling',
  'floor',
  'trunc',
  'sqrt',
  'power',
  'exp',
  'ln',
  'log',
  'mod',
  'sign',
  // strings
  'lower',
  'upper',
  'length',
  'char_length',
  'substr',
  'substring',
  'btrim',
  'ltrim',
  'rtrim',
  'concat',
  'concat_ws',
  'replace',
  'left',
  'right',
  'lpad',
  'rpad',
  'reverse',
  'split_part',
  'strpos',
  'starts_with',
  // dates
  'date_trunc',
  'date_part',
  'extract',
  'make_date',
  'now',
];

export const ALLOWED_FUNCTIONS = new Set([...AGGREGATE_FUNCTIONS, ...WINDOW_FUNCTIONS, ...SCALAR_FUNCTIONS]);

export const EXTRACT_FIELDS = new Set([
  'year',
  'quarter',
  'month',
  'week',
  'day',
  'hour',
  'minute',
  'second',
  'dow',
  'doy',
  'epoch',
]);

export const OPERATORS = new Set(['+', '-', '*', '/', '%', '=', '<>', '!=', '<', '<=', '>', '>=', '||']);

/** Type names after PostgreSQL's parser (`int` is `pg_catalog.int4`) -> how both engines spell them. */
const TYPES: Record<string, string> = {
  int2: 'SMALLINT',
  int4: 'INTEGER',
  int8: 'BIGINT',
  integer: 'INTEGER',
  bigint: 'BIGINT',
  float4: 'REAL',
  float8: 'DOUBLE PRECISION',
  numeric: 'NUMERIC',
  decimal: 'NUMERIC',
  text: 'TEXT',
  varchar: 'VARCHAR',
  bool: 'BOOLEAN',
  boolean: 'BOOLEAN',
  date: 'DATE',
  timestamp: 'TIMESTAMP',
  timestamptz: 'TIMESTAMPTZ',
  interval: 'INTERVAL',
};

/** A function name, refusing schema-qualified calls except PostgreSQL's own SQL-syntax forms. */
export function functionName(funcname: readonly Node[]): string {
  const parts = names(funcname).map((p) => p.toLowerCase());
  const name = parts[parts.length - 1];
  const qualified = parts.length > 2 || (parts.length === 2 && parts[0] !== 'pg_catalog');
  if (qualified || !ALLOWED_FUNCTIONS.has(name)) {
    throw unsupported(`function ${parts.join('.')} is not allowed`);
  }
  return name;
}

export function typeName(typeNameNode: Node): string {
  const parts = names(typeNameNode.names).map((p) => p.toLowerCase());
  const name = parts[parts.length - 1];
  const sqlName = TYPES[name];
  if (!sqlName || (parts.length === 2 && parts[0] !== 'pg_catalog') || parts.length > 2)
    throw unsupported(`type ${parts.join('.')} is not allowed`);
  if (typeNameNode.arrayBounds) throw unsupported('array types');
  const mods = (typeNameNode.typmods ?? []).map((m: Node) => {
    const v = m.A_Const?.ival?.ival ?? (m.A_Const?.ival ? 0 : undefined);
    if (typeof v !== 'number') throw unsupported(`type modifier of ${name}`);
    return String(v);
  });
  if (sqlName === 'INTERVAL' && mods.length > 0) throw unsupported('interval field qualifiers');
  return mods.length > 0 ? `${sqlName}(${mods.join(', ')})` : sqlName;
}
