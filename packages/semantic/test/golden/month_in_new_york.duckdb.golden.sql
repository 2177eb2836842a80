SELECT
  date_trunc('month', (("orders".created_at) AT TIME ZONE 'UTC') AT TIME ZONE $1) AS "orders__created_at_month",
  count(*) AS "orders__count"
FROM orders AS "orders"
GROUP BY 1
ORDER BY 1 ASC
LIMIT 10000
-- params: ["America/New_York"]
