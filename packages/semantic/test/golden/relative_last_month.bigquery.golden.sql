SELECT
  count(*) AS `orders__count`,
  sum(`orders`.amount) AS `orders__total_amount`
FROM orders AS `orders`
WHERE `orders`.created_at >= CAST(@p1 AS TIMESTAMP) AND `orders`.created_at <= CAST(@p2 AS TIMESTAMP)
LIMIT 10000
-- params: ["2024-02-01 00:00:00.000","2024-02-29 23:59:59.999"]
