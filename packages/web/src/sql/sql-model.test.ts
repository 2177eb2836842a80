import { CompletionContext } from '@codemirror/autocomplete';
import { EditorState } from '@codemirror/state';
import { describe, expect, it } from 'vitest';
import { formatValue } from '../dashboard/rows.ts';
import { catalogueOf, type MetaLike, tablesIn } from './catalogue.ts';
import { memberCompletionSource } from './completion.ts';
import { sqlResultTable } from './result-table.ts';

const member = (name: string, title: string, extra: Record<string, unknown> = {}) => ({
  name,
  title,
  shortTitle: title.replace(/^(Orders|Customers) /, ''),
  ...extra,
});

const meta: MetaLike = {
  cubes: [
    {
      name: 'orders',
      title: 'Orders',
      type: 'cube',
      measures: [
        member('orders.count', 'Orders Count', { type: 'number', aggType: 'count' }),
        member('orders.total_amount', 'Orders Total order amount', {
          type: 'number',
          aggType: 'sum',
          format: 'currency',
        }),
      ],
      dimensions: [
        member('orders.status', 'Orders Status', { type: 'string' }),
        member('orders.created_at', 'Orders Created at', { type: 'time' }),
      ],
      segments: [member('orders.completed', 'Orders Completed')],
    },
    {
      name: 'customers',
      title: 'Customers',
      type: 'cube',
      measures: [member('customers.count', 'Customers Count', { type: 'number', aggType: 'count' })],
      dimensions: [member('customers.country', 'Customers Country', { type: 'string' })],
      segments: [],
    },
  ],
};
const catalogue = catalogueOf(meta);

function complete(doc: string, explicit = false) {
  const state = EditorState.create({ doc });
  const source = memberCompletionSource(() => catalogue);
  const result = source(new CompletionContext(state, doc.length, explicit));
  return result ? result.options.map((o) => [o.label, o.detail]) : null;
}

describe('the SQL editor’s model', () => {
  it('reads the tables a query names after FROM and JOIN, quoted or not, known ones only', () => {
    const names = (sql: string) => tablesIn(sql, catalogue).map((t) => t.name);
    expect(names('SELECT 1 FROM Orders o JOIN "customers" c ON true')).toEqual(['orders', 'customers']);
    expect(names('SELECT 1 FROM nothing')).toEqual([]);
  });

  it('completes members of the tables read first, measures only inside MEASURE(, nothing after FROM or a dot', () => {
    const inCustomers = complete('SELECT co FROM customers');
    // Completion at the end of the text, after FROM: a table is wanted.
    expect(inCustomers).toBeNull();
    const select = complete('SELECT c');
    expect(select?.map(([label]) => label)).toEqual([
      'status',
      'created_at',
      'count',
      'total_amount',
      'completed',
      'country',
    ]);
    expect(select?.find(([label]) => label === 'total_amount')?.[1]).toBe('measure · sum · orders');
    const measures = complete('SELECT status, MEASURE(t');
    expect(measures?.map(([label]) => label)).toEqual(['count', 'total_amount']);
    expect(complete('SELECT orders.st')).toBeNull();
    // Nothing typed: only when asked (Ctrl+Space).
    expect(complete('SELECT ')).toBeNull();
    expect(complete('SELECT ', true)?.length).toBe(6);
  });

  it('titles and formats result columns as the members they stand for, by name or alias', () => {
    const sql =
      "SELECT status, MEASURE(total_amount) AS amount, DATE_TRUNC('month', created_at) AS m, 2 AS two FROM orders GROUP BY 1, 3";
    const table = sqlResultTable(
      [
        { name: 'status', column_type: 'Utf8' },
        { name: 'amount', column_type: 'Float64' },
        { name: 'm', column_type: 'Timestamp' },
        { name: 'two', column_type: 'Int64' },
      ],
      [['completed', '1234.5', '2024-03-01T00:00:00.000', '2']],
      sql,
      catalogue,
    );
    expect(table.columns.map((c) => [c.name, c.title, c.kind])).toEqual([
      ['status', 'Status', 'string'],
      ['amount', 'Total order amount', 'measure'],
      ['m', 'Created at', 'time'],
      ['two', 'two', 'number'],
    ]);
    const row = table.rows[0];
    expect(table.columns.map((c) => formatValue(row[c.name], c))).toEqual([
      'completed',
      '$1,234.50',
      // DATE_TRUNC('month', ...) gives the column its grain: the period reads as the charts label it.
      'Mar 2024',
      '2',
    ]);
    // Without the model (it could not be read), the SQL names and types stand.
    const plain = sqlResultTable([{ name: 'amount', column_type: 'Float64' }], [['1234.5']], sql, null);
    expect(plain.columns[0]).toMatchObject({ title: 'amount', kind: 'number' });
  });
});
