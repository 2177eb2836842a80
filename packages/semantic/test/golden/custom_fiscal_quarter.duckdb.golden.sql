SELECT
  (CAST($1 AS TIMESTAMP) + INTERVAL '3 months' * CAST(floor((epoch(("orders".created_at)) - epoch(CAST($1 AS TIMESTAMP))) / 7776000) AS BIGINT)) AS "orders__created_at_fiscal_quarter",
  count(*) AS "orders__count"
FROM orders AS "orders"
GROUP BY 1
ORDER BY 1 ASC
LIMIT 10000
-- params: ["2024-02-01T00:00:00.000"]
