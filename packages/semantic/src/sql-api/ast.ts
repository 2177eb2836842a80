import { UserError } from '../errors.ts';

/**
 * libpg-query's JSON AST (PostgreSQL's parse tree as protobuf JSON): every node is
 * `{ NodeType: fields }`. Fields equal to their default (0, false, '') are left out.
 */
// biome-ignore lint/suspicious/noExplicitAny: the parse tree is untyped JSON, checked node by node
export type Node = Record<string, any>;

/** SQL the SQL API cannot answer. A UserError, so every entry point answers it with a 4xx. */
export class SqlApiError extends UserError {}

export const unsupported = (what: string) => new SqlApiError(`Unsupported SQL: ${what}`);

export function kindOf(node: Node): string {
  const keys = Object.keys(node);
  if (keys.length !== 1) throw unsupported('malformed expression');
  return keys[0];
}

export function inner(node: Node): Node {
  return node[kindOf(node)];
}

/** `[{String: {sval}}]` lists (function names, qualified names, column references). */
export function names(list: readonly Node[] | undefined): string[] {
  return (list ?? []).map((n) => {
    if ('String' in n) return String(n.String.sval ?? '');
    if ('A_Star' in n) return '*';
    throw unsupported(`name part ${kindOf(n)}`);
  });
}

export type ConstValue = string | number | boolean | null;

/** The value of an `A_Const`; defaults are omitted by the protobuf JSON (`{ival: {}}` is 0). */
export function constValue(c: Node): ConstValue {
  if (c.isnull) return null;
  if ('ival' in c) return Number(c.ival.ival ?? 0);
  if ('fval' in c) {
    const text = String(c.fval.fval ?? '0');
    if (!/^[0-9.eE+-]+$/.test(text)) throw unsupported(`numeric literal ${text}`);
    return Number(text);
  }
  if ('sval' in c) return String(c.sval.sval ?? '');
  if ('boolval' in c) return c.boolval.boolval === true;
  throw unsupported('bit-string literal');
}

/** A constant, possibly cast (`'2024-01-01'::date`, `DATE '2024-01-01'`, `CAST(1 AS text)`). */
export function literal(node: Node): { value: ConstValue } | null {
  if ('A_Const' in node) return { value: constValue(node.A_Const) };
  if ('TypeCast' in node) return literal(node.TypeCast.arg);
  if ('A_Expr' in node && node.A_Expr.kind === 'AEXPR_OP' && !node.A_Expr.lexpr) {
    // a negative number is `- 5` in the parse tree
    const op = names(node.A_Expr.name)[0];
    const v = literal(node.A_Expr.rexpr);
    if (op === '-' && v && typeof v.value === 'number') return { value: -v.value };
  }
  return null;
}

/** Readable name of a statement or node kind, for error messages. */
export function statementName(kind: string): string {
  const known: Record<string, string> = {
    InsertStmt: 'INSERT',
    UpdateStmt: 'UPDATE',
    DeleteStmt: 'DELETE',
    MergeStmt: 'MERGE',
    CopyStmt: 'COPY',
    VariableSetStmt: 'SET',
    VariableShowStmt: 'SHOW',
    ExplainStmt: 'EXPLAIN',
    TransactionStmt: 'transaction control',
    CreateStmt: 'CREATE TABLE',
    CreateTableAsStmt: 'CREATE TABLE AS',
    DropStmt: 'DROP',
    AlterTableStmt: 'ALTER TABLE',
    TruncateStmt: 'TRUNCATE',
    CallStmt: 'CALL',
    DoStmt: 'DO',
    LoadStmt: 'LOAD',
    PrepareStmt: 'PREPARE',
    ExecuteStmt: 'EXECUTE',
    ViewStmt: 'CREATE VIEW',
    CreateFunctionStmt: 'CREATE FUNCTION',
    GrantStmt: 'GRANT',
    ListenStmt: 'LISTEN',
    NotifyStmt: 'NOTIFY',
  };
  return known[kind] ?? kind.replace(/Stmt$/, '');
}

/** Quotes an identifier for PostgreSQL and DuckDB alike. */
export function quote(name: string): string {
  if (name.includes('\0')) throw unsupported('NUL character in an identifier');
  return `"${name.replace(/"/g, '""')}"`;
}

/** A string literal, standard-conforming in both engines (backslashes are plain characters). */
export function stringLiteral(value: string): string {
  if (value.includes('\0')) throw unsupported('NUL character in a string');
  return `'${value.replace(/'/g, "''")}'`;
}
