import type * as PgQuery from 'libpg-query';
import { kindOf, type Node, SqlApiError, statementName, unsupported } from './ast.ts';

let loading: Promise<void> | null = null;
let parser: typeof PgQuery | null = null;

/**
 * libpg-query is PostgreSQL's parser compiled to WebAssembly: load it once before parsing. The
 * package itself is imported here too, not with this module: importing it instantiates its
 * WebAssembly (10 MiB), which a server that answers no SQL-API query never needs (issue 20).
 */
export function loadSqlParser(): Promise<void> {
  loading ??= import('libpg-query').then(async (module) => {
    await module.loadModule();
    parser = module;
  });
  return loading;
}

function parseSync(sql: string): { stmts?: { stmt?: Node }[] } {
  if (!parser) throw new Error('WASM module not initialized. Call `loadSqlParser()` first.');
  return parser.parseSync(sql);
}

/**
 * Parses exactly one SELECT with PostgreSQL's own grammar. Everything else (DML, DDL, COPY, SET,
 * several statements) is refused here, before any planning.
 */
export function parseSelect(sql: string): Node {
  if (typeof sql !== 'string' || sql.trim() === '') throw new SqlApiError('SQL query is empty');
  let tree: { stmts?: { stmt?: Node }[] };
  try {
    tree = parseSync(sql);
  } catch (error) {
    throw new SqlApiError(`SQL syntax error: ${(error as Error).message}`);
  }
  const statements = (tree.stmts ?? []).filter((s) => s.stmt);
  if (statements.length === 0) throw new SqlApiError('SQL query is empty');
  if (statements.length > 1) throw unsupported('multiple statements');
  const stmt = statements[0].stmt!;
  const kind = kindOf(stmt);
  if (kind !== 'SelectStmt') throw unsupported(`${statementName(kind)} statements are not allowed`);
  return stmt.SelectStmt;
}
