SELECT
  `q_0`.`customers__country` AS `customers__country`,
  `q_0`.`customers__count` AS `customers__count`,
  `q_0`.`orders__total_amount` AS `orders__total_amount`,
  COALESCE(`q_1`.`line_items__count`, 0) AS `line_items__count`
FROM (
  SELECT
    `customers`.country AS `customers__country`,
    count(DISTINCT `customers`.id) AS `customers__count`,
    sum(`orders`.amount) AS `orders__total_amount`
  FROM orders AS `orders`
  LEFT JOIN customers AS `customers` ON `orders`.customer_id = `customers`.id
  GROUP BY 1
) AS `q_0`
LEFT JOIN (
  SELECT
    `customers`.country AS `customers__country`,
    count(`line_items`.id) AS `line_items__count`
  FROM orders AS `orders`
  LEFT JOIN customers AS `customers` ON `orders`.customer_id = `customers`.id
  INNER JOIN line_items AS `line_items` ON `orders`.id = `line_items`.order_id
  GROUP BY 1
) AS `q_1` ON `q_0`.`customers__country` IS NOT DISTINCT FROM `q_1`.`customers__country`
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: []
