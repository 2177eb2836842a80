SELECT
  (CAST($1 AS TIMESTAMP) + INTERVAL '14 days' * CAST(floor((epoch(("orders".created_at)) - epoch(CAST($1 AS TIMESTAMP))) / 1209600) AS BIGINT)) AS "orders__created_at_fortnight",
  count(*) AS "orders__count"
FROM orders AS "orders"
GROUP BY 1
ORDER BY 1 ASC
LIMIT 10000
-- params: ["2024-01-01T00:00:00.000"]
