SELECT
  `customers`.country AS `customers__country`,
  1.0 * count(CASE WHEN `orders`.status = 'completed' THEN `orders`.id END) / NULLIF(count(*), 0) AS `orders__completed_ratio`,
  count(CASE WHEN `orders`.status = 'completed' THEN `orders`.id END) AS `orders__completed_count`
FROM orders AS `orders`
LEFT JOIN customers AS `customers` ON `orders`.customer_id = `customers`.id
GROUP BY 1
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: []
