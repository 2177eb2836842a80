SELECT
  addDays(toDateTime64($1, 3, 'UTC'), toInt64(floor((toUnixTimestamp64Milli(toDateTime64("orders".created_at, 3, 'UTC')) - toUnixTimestamp64Milli(toDateTime64($1, 3, 'UTC'))) / 1209600000)) * 14) AS "orders__created_at_fortnight",
  count(*) AS "orders__count"
FROM orders AS "orders"
GROUP BY 1
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["2024-01-01 00:00:00.000"]
