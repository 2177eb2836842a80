SELECT
  `orders`.status AS `orders__status`,
  count(*) AS `orders__count`,
  sum(`orders`.amount) AS `orders__total_amount`
FROM orders AS `orders`
GROUP BY 1
ORDER BY 2 DESC NULLS FIRST
LIMIT 10000
-- params: []
