SELECT
  toDateTime64(toMonday(addSeconds(toDateTime64("orders".created_at, 3, 'UTC'), timeZoneOffset(toTimeZone("orders".created_at, $1)))), 3, 'UTC') AS "orders__created_at_week",
  count(*) AS "orders__count",
  sum("orders".amount) AS "orders__total_amount"
FROM orders AS "orders"
WHERE "orders".created_at >= toDateTime64($2, 3, 'UTC') AND "orders".created_at <= toDateTime64($3, 3, 'UTC')
GROUP BY 1
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["America/New_York","2024-01-01 05:00:00.000","2024-03-01 04:59:59.999"]
