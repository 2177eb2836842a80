SELECT
  `q_0`.`orders__status` AS `orders__status`,
  `q_0`.`orders__count` AS `orders__count`,
  `q_0`.`orders__total_amount` AS `orders__total_amount`,
  COALESCE(`q_1`.`line_items__count`, 0) AS `line_items__count`
FROM (
  SELECT
    `orders`.status AS `orders__status`,
    count(*) AS `orders__count`,
    sum(`orders`.amount) AS `orders__total_amount`
  FROM orders AS `orders`
  GROUP BY 1
) AS `q_0`
LEFT JOIN (
  SELECT
    `orders`.status AS `orders__status`,
    count(`line_items`.id) AS `line_items__count`
  FROM orders AS `orders`
  INNER JOIN line_items AS `line_items` ON `orders`.id = `line_items`.order_id
  GROUP BY 1
) AS `q_1` ON `q_0`.`orders__status` IS NOT DISTINCT FROM `q_1`.`orders__status`
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: []
