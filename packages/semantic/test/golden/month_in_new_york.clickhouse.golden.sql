SELECT
  toDateTime64(toStartOfMonth(addSeconds(toDateTime64("orders".created_at, 3, 'UTC'), timeZoneOffset(toTimeZone("orders".created_at, $1)))), 3, 'UTC') AS "orders__created_at_month",
  count(*) AS "orders__count"
FROM orders AS "orders"
GROUP BY 1
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["America/New_York"]
