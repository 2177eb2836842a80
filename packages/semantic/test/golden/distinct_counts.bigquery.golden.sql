SELECT
  `orders`.status AS `orders__status`,
  count(DISTINCT `orders`.customer_id) AS `orders__unique_customers`,
  APPROX_COUNT_DISTINCT(`orders`.customer_id) AS `orders__approx_customers`
FROM orders AS `orders`
GROUP BY 1
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: []
