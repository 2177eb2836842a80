import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import { type Column, type ColumnFormats, cellText, isNumeric, type Row, type Table } from './table.ts';
import './results.css';

export interface ResultTableProps {
  table: Table;
  /** Report column formats by column name; the data API's formats (currency, percent) otherwise. */
  formats?: ColumnFormats;
  /**
   * Called when a cell is activated (click, or Enter on its button): a value to drill into. Without
   * it the cells are plain text.
   */
  onCellClick?: (row: Row, column: Column) => void;
  /** Which cells are offered for drilling (default: measures). */
  drillable?: (column: Column) => boolean;
  /** The scrolling box's height (CSS); the table scrolls under its sticky header beyond it. */
  height?: string;
  /** The table's accessible name. */
  label?: string;
}

const rowHeight = 31;

/**
 * The rows as a table with a sticky header, only the rows in view drawn (with @tanstack/react-virtual),
 * so that 50,000 rows scroll as smoothly as fifty. Numbers are right-aligned in their format.
 */
export function ResultTable({
  table,
  formats = {},
  onCellClick,
  drillable = (c) => c.kind === 'measure',
  height = '30rem',
  label = 'Rows',
}: ResultTableProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: table.rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => rowHeight,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const before = items.length > 0 ? items[0].start : 0;
  const after = items.length > 0 ? virtualizer.getTotalSize() - items[items.length - 1].end : 0;
  const span = table.columns.length || 1;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: the scrolling box takes the keyboard's arrows
    <div ref={scroller} className="rs-table-scroll" style={{ maxHeight: height }} tabIndex={0}>
      <table className="rs-table" aria-label={label} aria-rowcount={table.rows.length + 1}>
        <thead>
          <tr aria-rowindex={1}>
            {table.columns.map((c) => (
              <th key={c.name} scope="col" className={isNumeric(c) ? 'rs-num' : undefined} title={c.name}>
                {c.title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {before > 0 && (
            <tr className="rs-spacer">
              <td colSpan={span} style={{ height: before }} />
            </tr>
          )}
          {items.map((item) => {
            const row = table.rows[item.index];
            return (
              <tr key={item.key} aria-rowindex={item.index + 2} style={{ height: rowHeight }}>
                {table.columns.map((c) => {
                  const text = cellText(row, c, formats);
                  const num = isNumeric(c) ? 'rs-num' : undefined;
                  if (onCellClick && drillable(c) && row[c.name] !== null && row[c.name] !== undefined)
                    return (
                      <td key={c.name} className={num}>
                        <button
                          type="button"
                          className="rs-drill"
                          title={`Show the rows behind ${text}`}
                          onClick={() => onCellClick(row, c)}
                        >
                          {text}
                        </button>
                      </td>
                    );
                  return (
                    <td key={c.name} className={num}>
                      {text}
                    </td>
                  );
                })}
              </tr>
            );
          })}
          {after > 0 && (
            <tr className="rs-spacer">
              <td colSpan={span} style={{ height: after }} />
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

/** One or a few figures, large: a result of one row of measures. */
export function BigNumbers({ table, formats = {} }: { table: Table; formats?: ColumnFormats }) {
  const row = table.rows[0] ?? {};
  return (
    <div className="rs-figures">
      {table.columns.map((c) => (
        <figure key={c.name} className="rs-figure">
          <span className="rs-figure-value">{cellText(row, c, formats)}</span>
          <figcaption>{c.title}</figcaption>
        </figure>
      ))}
    </div>
  );
}
