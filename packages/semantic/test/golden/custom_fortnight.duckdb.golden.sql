SELECT
  time_bucket(INTERVAL '14 days', (("orders".created_at) AT TIME ZONE 'UTC') AT TIME ZONE $1, CAST($2 AS TIMESTAMP)) AS "orders__created_at_fortnight",
  count("orders".id) AS "orders__count"
FROM orders AS "orders"
GROUP BY 1
ORDER BY 1 ASC
LIMIT 10000
-- params: ["UTC","2024-01-01"]
