SELECT
  (CAST($1 AS TIMESTAMP) + INTERVAL '3' MONTH * CAST(floor(CAST(date_diff('millisecond', CAST($1 AS TIMESTAMP), ("orders".created_at)) AS DOUBLE) / 7776000000) AS BIGINT)) AS "orders__created_at_fiscal_quarter",
  count(*) AS "orders__count"
FROM orders AS "orders"
GROUP BY 1
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["2024-02-01 00:00:00.000"]
