SELECT
  `customers`.name AS `customers__name`,
  sum(`orders`.amount) AS `orders__total_amount`
FROM orders AS `orders`
LEFT JOIN customers AS `customers` ON `orders`.customer_id = `customers`.id
GROUP BY 1
HAVING sum(`orders`.amount) > @p1
ORDER BY 2 DESC NULLS FIRST
LIMIT 10000
-- params: [200]
