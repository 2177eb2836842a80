import type { Dialect } from '../dialect/dialect.ts';
import { UserError } from '../errors.ts';
import { type Node, unsupported } from './ast.ts';

// Frame option bits of PostgreSQL's WindowDef (src/include/nodes/parsenodes.h, FRAMEOPTION_*).
const NONDEFAULT = 0x1;
const RANGE = 0x2;
const ROWS = 0x4;
const GROUPS = 0x8;
const START_UNBOUNDED_PRECEDING = 0x20;
const END_UNBOUNDED_FOLLOWING = 0x100;
const START_CURRENT_ROW = 0x200;
const END_CURRENT_ROW = 0x400;
const START_OFFSET_PRECEDING = 0x800;
const END_OFFSET_PRECEDING = 0x1000;
const START_OFFSET_FOLLOWING = 0x2000;
const END_OFFSET_FOLLOWING = 0x4000;
const EXCLUSIONS = 0x8000 | 0x10000 | 0x20000;

/** Window functions that take no frame: ranking and offsets (Redshift's "ranking functions", LAG, LEAD). */
const FRAMELESS = new Set([
  'row_number',
  'rank',
  'dense_rank',
  'percent_rank',
  'cume_dist',
  'ntile',
  'lag',
  'lead',
]);

/** `OVER (PARTITION BY ... ORDER BY ... frame)`; named windows are refused. */
export function printWindow(w: Node, p: (n: Node) => string, fn = '', dialect?: Dialect): string {
  if (w.name || w.refname) throw unsupported('named windows');
  const parts: string[] = [];
  if (w.partitionClause) parts.push(`PARTITION BY ${w.partitionClause.map(p).join(', ')}`);
  if (w.orderClause)
    parts.push(`ORDER BY ${w.orderClause.map((s: Node) => sortItem(s.SortBy, p)).join(', ')}`);
  let options = Number(w.frameOptions ?? 0);
  const engine = dialect?.sqlApi?.rowFramesOnly;
  if (engine) options = rowsFrame(options, Boolean(w.orderClause), fn.toLowerCase(), engine);
  if (options & NONDEFAULT) parts.push(frame(options, w, p));
  return parts.join(' ');
}

/**
 * The frame for an engine with ROWS frames only (Redshift's frame_clause is `ROWS ...`, and an
 * aggregate window with ORDER BY must state one). RANGE over the whole partition is the same rows
 * as ROWS over it; any other RANGE or GROUPS frame, or PostgreSQL's default frame (RANGE up to the
 * current row, ties included) left implicit, would give other rows: refused, naming the engine.
 */
function rowsFrame(o: number, ordered: boolean, fn: string, engine: string): number {
  const whole = START_UNBOUNDED_PRECEDING | END_UNBOUNDED_FOLLOWING;
  if (o & NONDEFAULT && o & (RANGE | GROUPS)) {
    if (o & RANGE && (o & whole) === whole) return (o & ~RANGE) | ROWS;
    throw new UserError(
      `Window frames in ${o & RANGE ? 'RANGE' : 'GROUPS'} mode are not supported on ${engine}: it takes ROWS frames only; write ROWS BETWEEN ... instead`,
    );
  }
  if (!(o & NONDEFAULT) && ordered && !FRAMELESS.has(fn))
    throw new UserError(
      `Window function ${fn} with ORDER BY needs an explicit frame on ${engine}: write ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW (PostgreSQL's implicit RANGE frame also takes tied rows)`,
    );
  return o;
}

export function sortItem(s: Node, p: (n: Node) => string): string {
  if (s.useOp) throw unsupported('ORDER BY ... USING');
  const dir = s.sortby_dir === 'SORTBY_DESC' ? ' DESC' : s.sortby_dir === 'SORTBY_ASC' ? ' ASC' : '';
  const nulls =
    s.sortby_nulls === 'SORTBY_NULLS_FIRST'
      ? ' NULLS FIRST'
      : s.sortby_nulls === 'SORTBY_NULLS_LAST'
        ? ' NULLS LAST'
        : '';
  return `${p(s.node)}${dir}${nulls}`;
}

function frame(o: number, w: Node, p: (n: Node) => string): string {
  if (o & EXCLUSIONS) throw unsupported('window frame EXCLUDE');
  const mode = o & ROWS ? 'ROWS' : o & GROUPS ? 'GROUPS' : o & RANGE ? 'RANGE' : null;
  if (!mode) throw unsupported('window frame');
  const start =
    o & START_UNBOUNDED_PRECEDING
      ? 'UNBOUNDED PRECEDING'
      : o & START_CURRENT_ROW
        ? 'CURRENT ROW'
        : o & START_OFFSET_PRECEDING
          ? `${p(w.startOffset)} PRECEDING`
          : o & START_OFFSET_FOLLOWING
            ? `${p(w.startOffset)} FOLLOWING`
            : null;
  const end =
    o & END_UNBOUNDED_FOLLOWING
      ? 'UNBOUNDED FOLLOWING'
      : o & END_CURRENT_ROW
        ? 'CURRENT ROW'
        : o & END_OFFSET_PRECEDING
          ? `${p(w.endOffset)} PRECEDING`
          : o & END_OFFSET_FOLLOWING
            ? `${p(w.endOffset)} FOLLOWING`
            : null;
  if (!start) throw unsupported('window frame start');
  return end ? `${mode} BETWEEN ${start} AND ${end}` : `${mode} ${start}`;
}
