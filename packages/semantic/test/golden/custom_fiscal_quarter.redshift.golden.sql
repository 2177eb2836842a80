SELECT
  DATEADD(month, CAST(3 * FLOOR(CAST(DATEDIFF(second, CAST($1 AS TIMESTAMP), ("orders".created_at)) AS DOUBLE PRECISION) / 7776000) AS INTEGER), CAST($1 AS TIMESTAMP)) AS "orders__created_at_fiscal_quarter",
  count(*) AS "orders__count"
FROM orders AS "orders"
GROUP BY 1
ORDER BY 1 ASC
LIMIT 10000
-- params: ["2024-02-01 00:00:00.000"]
