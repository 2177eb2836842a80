SELECT
  `orders`.id AS `orders__id`,
  `orders`.status AS `orders__status`,
  `orders`.amount AS `orders__total_amount`
FROM orders AS `orders`
ORDER BY 1 ASC NULLS LAST
LIMIT 3
OFFSET 1
-- params: []
