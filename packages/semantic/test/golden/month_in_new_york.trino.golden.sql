SELECT
  date_trunc('month', CAST(at_timezone(with_timezone("orders".created_at, 'UTC'), $1) AS TIMESTAMP(6))) AS "orders__created_at_month",
  count(*) AS "orders__count"
FROM orders AS "orders"
GROUP BY 1
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["America/New_York"]
