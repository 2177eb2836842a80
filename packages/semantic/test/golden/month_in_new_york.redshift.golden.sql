SELECT
  DATE_TRUNC('month', CONVERT_TIMEZONE('UTC', $1, "orders".created_at)) AS "orders__created_at_month",
  count(*) AS "orders__count"
FROM orders AS "orders"
GROUP BY 1
ORDER BY 1 ASC
LIMIT 10000
-- params: ["America/New_York"]
