SELECT
  DATETIME_TRUNC(DATETIME(`orders`.created_at), DAY) AS `orders__created_at_day`,
  sum(`orders`.amount) AS `orders__total_amount`
FROM orders AS `orders`
WHERE `orders`.created_at >= CAST(@p1 AS TIMESTAMP) AND `orders`.created_at <= CAST(@p2 AS TIMESTAMP)
GROUP BY 1
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["2024-01-01 00:00:00.000","2024-01-31 23:59:59.999"]
