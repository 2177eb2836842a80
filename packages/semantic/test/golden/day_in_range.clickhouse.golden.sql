SELECT
  toDateTime64(toStartOfDay(toDateTime64("orders".created_at, 3, 'UTC')), 3, 'UTC') AS "orders__created_at_day",
  sum("orders".amount) AS "orders__total_amount"
FROM orders AS "orders"
WHERE "orders".created_at >= toDateTime64($1, 3, 'UTC') AND "orders".created_at <= toDateTime64($2, 3, 'UTC')
GROUP BY 1
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["2024-01-01 00:00:00.000","2024-01-31 23:59:59.999"]
