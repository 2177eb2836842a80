/**
 * SQL-API queries on the sample data, each with the direct SQL that must give the same rows on
 * the same engine (portable between DuckDB and PostgreSQL).
 */
export const sqlApiCases: Record<string, { api: string; direct: string }> = {
  measures_by_status: {
    api: 'SELECT status, MEASURE(count) AS n, SUM(total_amount) AS t, AVG(avg_amount) AS a FROM orders GROUP BY 1 ORDER BY 1',
    direct: 'SELECT status, count(*), sum(amount), avg(amount) FROM orders GROUP BY 1 ORDER BY 1',
  },
  where_predicates: {
    api: `SELECT status, COUNT(*) FROM orders
      WHERE created_at >= '2024-01-01' AND created_at < '2024-07-01' AND status IN ('completed', 'shipped', 'returned')
        AND NOT (status = 'returned') AND amount BETWEEN 20 AND 400
      GROUP BY 1 ORDER BY 2 DESC`,
    direct: `SELECT status, count(*) FROM orders
      WHERE created_at >= '2024-01-01' AND created_at < '2024-07-01' AND status IN ('completed', 'shipped', 'returned')
        AND NOT (status = 'returned') AND amount BETWEEN 20 AND 400
      GROUP BY 1 ORDER BY 2 DESC`,
  },
  date_trunc_month: {
    api: "SELECT DATE_TRUNC('month', created_at) AS m, MEASURE(count) FROM orders WHERE created_at BETWEEN '2024-01-01' AND '2024-06-30' GROUP BY 1 ORDER BY 1",
    direct:
      "SELECT date_trunc('month', created_at), count(*) FROM orders WHERE created_at BETWEEN '2024-01-01' AND '2024-06-30' GROUP BY 1 ORDER BY 1",
  },
  segment_and_like: {
    api: "SELECT is_big, MEASURE(count) FROM orders WHERE completed AND status LIKE 'comp%' GROUP BY 1 ORDER BY 1",
    direct:
      "SELECT amount >= 250, count(*) FROM orders WHERE status = 'completed' AND status LIKE 'comp%' GROUP BY 1 ORDER BY 1",
  },
  cube_join: {
    api: 'SELECT c.country, MEASURE(o.count) FROM orders o JOIN customers c ON o.__cubeJoinField = c.__cubeJoinField GROUP BY 1 ORDER BY 1',
    direct:
      'SELECT c.country, count(*) FROM orders o LEFT JOIN customers c ON o.customer_id = c.id GROUP BY 1 ORDER BY 1',
  },
  view_with_fanout: {
    api: 'SELECT customers_country, MEASURE(count), MEASURE(revenue) FROM sales GROUP BY 1 ORDER BY 1',
    direct: `SELECT c.country, count(DISTINCT o.id), sum(li.quantity * li.price)
      FROM orders o LEFT JOIN customers c ON o.customer_id = c.id LEFT JOIN line_items li ON li.order_id = o.id
      GROUP BY 1 ORDER BY 1`,
  },
  cte_window_case: {
    api: `WITH s AS (SELECT status, MEASURE(count) AS n FROM orders GROUP BY 1)
      SELECT status, n, RANK() OVER (ORDER BY n DESC) AS r, CASE WHEN n > 100 THEN 'big' ELSE 'small' END AS size,
             n * 100.0 / SUM(n) OVER () AS share
      FROM s ORDER BY status`,
    direct: `WITH s AS (SELECT status, count(*) AS n FROM orders GROUP BY 1)
      SELECT status, n, RANK() OVER (ORDER BY n DESC), CASE WHEN n > 100 THEN 'big' ELSE 'small' END,
             n * 100.0 / SUM(n) OVER ()
      FROM s ORDER BY status`,
  },
  outer_aggregation: {
    api: 'SELECT SUM(n) AS total, MAX(n) AS top FROM (SELECT status, MEASURE(count) AS n FROM orders GROUP BY 1) t',
    direct: 'SELECT sum(n), max(n) FROM (SELECT status, count(*) AS n FROM orders GROUP BY 1) t',
  },
  arithmetic_limit_offset: {
    api: 'SELECT status, SUM(total_amount) / MEASURE(count) AS per_order FROM orders GROUP BY 1 ORDER BY 1 LIMIT 2 OFFSET 1',
    direct: 'SELECT status, sum(amount) / count(*) FROM orders GROUP BY 1 ORDER BY 1 LIMIT 2 OFFSET 1',
  },
  select_star: {
    api: 'SELECT * FROM orders ORDER BY id LIMIT 5',
    direct: 'SELECT id, status, amount, amount >= 250, created_at FROM orders ORDER BY id LIMIT 5',
  },
  union_and_subquery: {
    api: `SELECT status FROM orders WHERE status = 'shipped' GROUP BY 1
      UNION ALL SELECT status FROM orders WHERE status = 'returned' GROUP BY 1 ORDER BY 1`,
    direct: "SELECT DISTINCT status FROM orders WHERE status IN ('shipped', 'returned') ORDER BY 1",
  },
};

/** Engine values -> comparable text: times as `YYYY-MM-DDTHH:mm:ss.SSS`, numbers rounded. */
export function normalizeRow(row: readonly unknown[]): unknown[] {
  return row.map((v) => {
    if (v === null || v === undefined) return null;
    if (v instanceof Date) return v.toISOString().slice(0, 19);
    const s = String(v);
    if (/^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}/.test(s)) return s.replace(' ', 'T').slice(0, 19);
    if (/^-?\d+(\.\d+)?(e-?\d+)?$/.test(s)) return String(Number(Number(s).toFixed(6)));
    return s;
  });
}
