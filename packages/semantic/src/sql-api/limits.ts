import { literal, type Node, unsupported } from './ast.ts';
import { SQL_API_ROW_LIMIT } from './context.ts';

/** LIMIT and OFFSET as constants; LIMIT is capped at the SQL API's row limit. */
export function limitOf(stmt: Node): { count: number | null; offset: number } {
  if (stmt.limitOption === 'LIMIT_OPTION_WITH_TIES') throw unsupported('FETCH ... WITH TIES');
  const read = (node: Node | undefined, what: string): number | null => {
    if (!node) return null;
    const v = literal(node);
    if (v?.value === null) return null; // LIMIT NULL / LIMIT ALL
    if (!v || typeof v.value !== 'number' || !Number.isInteger(v.value) || v.value < 0)
      throw unsupported(`${what} that is not a non-negative integer constant`);
    return v.value;
  };
  const count = read(stmt.limitCount, 'LIMIT');
  return {
    count: count === null ? null : Math.min(count, SQL_API_ROW_LIMIT),
    offset: read(stmt.limitOffset, 'OFFSET') ?? 0,
  };
}
