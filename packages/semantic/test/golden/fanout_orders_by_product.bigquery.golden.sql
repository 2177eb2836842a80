SELECT
  `q_0`.`line_items__product_id` AS `line_items__product_id`,
  `q_0`.`orders__count` AS `orders__count`,
  `q_1`.`orders__total_amount` AS `orders__total_amount`,
  `q_1`.`orders__avg_amount` AS `orders__avg_amount`
FROM (
  SELECT
    `line_items`.product_id AS `line_items__product_id`,
    count(DISTINCT `orders`.id) AS `orders__count`
  FROM orders AS `orders`
  LEFT JOIN line_items AS `line_items` ON `orders`.id = `line_items`.order_id
  GROUP BY 1
) AS `q_0`
INNER JOIN (
  SELECT
    `orders__keys`.`line_items__product_id` AS `line_items__product_id`,
    sum(`orders`.amount) AS `orders__total_amount`,
    avg(`orders`.amount) AS `orders__avg_amount`
  FROM (
    SELECT DISTINCT
      `line_items`.product_id AS `line_items__product_id`,
      `orders`.id AS `orders__pk_0`
    FROM orders AS `orders`
    LEFT JOIN line_items AS `line_items` ON `orders`.id = `line_items`.order_id
  ) AS `orders__keys`
  LEFT JOIN orders AS `orders` ON `orders__keys`.`orders__pk_0` = `orders`.id
  GROUP BY 1
) AS `q_1` ON `q_0`.`line_items__product_id` IS NOT DISTINCT FROM `q_1`.`line_items__product_id`
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: []
