SELECT
  DATEADD('month', 3 * FLOOR(DATEDIFF('millisecond', CAST($1 AS TIMESTAMP_NTZ), ("orders".created_at)) / 7776000000), CAST($1 AS TIMESTAMP_NTZ)) AS "orders__created_at_fiscal_quarter",
  count(*) AS "orders__count"
FROM orders AS "orders"
GROUP BY 1
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["2024-02-01 00:00:00.000"]
