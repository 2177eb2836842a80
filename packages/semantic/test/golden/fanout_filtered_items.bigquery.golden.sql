SELECT
  `q_0`.`orders__status` AS `orders__status`,
  `q_0`.`orders__count` AS `orders__count`,
  `q_1`.`orders__total_amount` AS `orders__total_amount`,
  `q_0`.`line_items__count` AS `line_items__count`
FROM (
  SELECT
    `orders`.status AS `orders__status`,
    count(DISTINCT `orders`.id) AS `orders__count`,
    count(`line_items`.id) AS `line_items__count`
  FROM orders AS `orders`
  LEFT JOIN line_items AS `line_items` ON `orders`.id = `line_items`.order_id
  WHERE `line_items`.quantity >= @p1
  GROUP BY 1
) AS `q_0`
INNER JOIN (
  SELECT
    `orders__keys`.`orders__status` AS `orders__status`,
    sum(`orders`.amount) AS `orders__total_amount`
  FROM (
    SELECT DISTINCT
      `orders`.status AS `orders__status`,
      `orders`.id AS `orders__pk_0`
    FROM orders AS `orders`
    LEFT JOIN line_items AS `line_items` ON `orders`.id = `line_items`.order_id
    WHERE `line_items`.quantity >= @p1
  ) AS `orders__keys`
  LEFT JOIN orders AS `orders` ON `orders__keys`.`orders__pk_0` = `orders`.id
  GROUP BY 1
) AS `q_1` ON `q_0`.`orders__status` IS NOT DISTINCT FROM `q_1`.`orders__status`
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: [2]
