SELECT
  time_bucket(INTERVAL '14 days', ("orders".created_at), CAST($1 AS TIMESTAMP)) AS "orders__created_at_fortnight",
  count("orders".id) AS "orders__count"
FROM orders AS "orders"
GROUP BY 1
ORDER BY 1 ASC
LIMIT 10000
-- params: ["2024-01-01"]
