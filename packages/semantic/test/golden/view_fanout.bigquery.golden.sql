SELECT
  `q_0`.`sales_overview__customers_country` AS `sales_overview__customers_country`,
  `q_0`.`orders__count` AS `sales_overview__count`,
  `q_0`.`orders__total_amount` AS `sales_overview__total_amount`,
  COALESCE(`q_1`.`line_items__count`, 0) AS `sales_overview__line_item_count`
FROM (
  SELECT
    `customers`.country AS `sales_overview__customers_country`,
    count(*) AS `orders__count`,
    sum(`orders`.amount) AS `orders__total_amount`
  FROM orders AS `orders`
  LEFT JOIN customers AS `customers` ON `orders`.customer_id = `customers`.id
  WHERE `orders`.status <> @p1 OR `orders`.status IS NULL
  GROUP BY 1
) AS `q_0`
LEFT JOIN (
  SELECT
    `customers`.country AS `sales_overview__customers_country`,
    count(`line_items`.id) AS `line_items__count`
  FROM orders AS `orders`
  INNER JOIN line_items AS `line_items` ON `orders`.id = `line_items`.order_id
  LEFT JOIN customers AS `customers` ON `orders`.customer_id = `customers`.id
  WHERE `orders`.status <> @p1 OR `orders`.status IS NULL
  GROUP BY 1
) AS `q_1` ON `q_0`.`sales_overview__customers_country` IS NOT DISTINCT FROM `q_1`.`sales_overview__customers_country`
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["cancelled"]
