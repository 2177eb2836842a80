SELECT
  `q_0`.`orders__count` AS `orders__count`,
  `q_0`.`orders__total_amount` AS `orders__total_amount`,
  COALESCE(`q_1`.`line_items__count`, 0) AS `line_items__count`
FROM (
  SELECT
    count(*) AS `orders__count`,
    sum(`orders`.amount) AS `orders__total_amount`
  FROM orders AS `orders`
) AS `q_0`
LEFT JOIN (
  SELECT
    count(`line_items`.id) AS `line_items__count`
  FROM orders AS `orders`
  INNER JOIN line_items AS `line_items` ON `orders`.id = `line_items`.order_id
) AS `q_1` ON 1 = 1
LIMIT 10000
-- params: []
