SELECT
  addMonths(toDateTime64($1, 3, 'UTC'), toInt64(floor((toUnixTimestamp64Milli(toDateTime64("orders".created_at, 3, 'UTC')) - toUnixTimestamp64Milli(toDateTime64($1, 3, 'UTC'))) / 7776000000)) * 3) AS "orders__created_at_fiscal_quarter",
  count(*) AS "orders__count"
FROM orders AS "orders"
GROUP BY 1
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["2024-02-01 00:00:00.000"]
