SELECT
  `q_0`.`orders__status` AS `orders__status`,
  `q_0`.`orders__unique_customers` AS `orders__unique_customers`,
  `q_0`.`orders__total_amount` AS `orders__total_amount`,
  `q_1`.`line_items__avg_price` AS `line_items__avg_price`
FROM (
  SELECT
    `orders`.status AS `orders__status`,
    count(DISTINCT `orders`.customer_id) AS `orders__unique_customers`,
    sum(`orders`.amount) AS `orders__total_amount`
  FROM orders AS `orders`
  GROUP BY 1
) AS `q_0`
LEFT JOIN (
  SELECT
    `orders`.status AS `orders__status`,
    avg(`line_items`.price) AS `line_items__avg_price`
  FROM orders AS `orders`
  INNER JOIN line_items AS `line_items` ON `orders`.id = `line_items`.order_id
  GROUP BY 1
) AS `q_1` ON `q_0`.`orders__status` IS NOT DISTINCT FROM `q_1`.`orders__status`
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: []
