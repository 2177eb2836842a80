SELECT
  DATETIME_TRUNC(DATETIME(`orders`.created_at, @p1), MONTH) AS `orders__created_at_month`,
  count(*) AS `orders__count`
FROM orders AS `orders`
GROUP BY 1
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["America/New_York"]
