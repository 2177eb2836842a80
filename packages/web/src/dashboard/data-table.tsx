import { type Column, formatValue, type Table } from './rows.ts';
import type { ColumnFormat } from './types.ts';

const numeric = (c: Column) => c.kind === 'measure' || c.kind === 'number';

/** The rows as a scrolling table with a sticky header; numbers right-aligned in their format. */
export function DataTable({ table, formats }: { table: Table; formats: Record<string, ColumnFormat> }) {
  return (
    <div className="tsr-table-wrap">
      <table className="tsr-table">
        <thead>
          <tr>
            {table.columns.map((c) => (
              <th key={c.name} scope="col" className={numeric(c) ? 'tsr-num' : undefined} title={c.name}>
                {c.title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row, i) => (
            // Rows have no key of their own; their order is the query's.
            // biome-ignore lint/suspicious/noArrayIndexKey: see above
            <tr key={i}>
              {table.columns.map((c) => (
                <td key={c.name} className={numeric(c) ? 'tsr-num' : undefined}>
                  {formatValue(row[c.name], c, formats)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** One figure, as large as its tile allows (dashboard.css sizes it to the tile). */
export function BigNumber({
  table,
  column,
  formats,
}: {
  table: Table;
  column: Column;
  formats: Record<string, ColumnFormat>;
}) {
  const value = formatValue(table.rows[0][column.name], column, formats);
  return (
    <div className="tsr-figure">
      <span className="tsr-figure-value" title={column.title}>
        {value}
      </span>
    </div>
  );
}
