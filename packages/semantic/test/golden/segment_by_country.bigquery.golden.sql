SELECT
  `customers`.country AS `customers__country`,
  count(*) AS `orders__count`,
  sum(`orders`.amount) AS `orders__total_amount`
FROM orders AS `orders`
LEFT JOIN customers AS `customers` ON `orders`.customer_id = `customers`.id
WHERE `orders`.status = 'completed'
GROUP BY 1
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: []
