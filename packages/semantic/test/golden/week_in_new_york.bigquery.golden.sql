SELECT
  DATETIME_TRUNC(DATETIME(`orders`.created_at, @p1), ISOWEEK) AS `orders__created_at_week`,
  count(*) AS `orders__count`,
  sum(`orders`.amount) AS `orders__total_amount`
FROM orders AS `orders`
WHERE `orders`.created_at >= CAST(@p2 AS TIMESTAMP) AND `orders`.created_at <= CAST(@p3 AS TIMESTAMP)
GROUP BY 1
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["America/New_York","2024-01-01 05:00:00.000","2024-03-01 04:59:59.999"]
