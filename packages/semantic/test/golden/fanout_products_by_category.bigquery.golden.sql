SELECT
  `q_0`.`products__category` AS `products__category`,
  `q_0`.`products__count` AS `products__count`,
  `q_1`.`products__price_total` AS `products__price_total`,
  `q_0`.`line_items__quantity_total` AS `line_items__quantity_total`
FROM (
  SELECT
    `products`.category AS `products__category`,
    count(DISTINCT `products`.id) AS `products__count`,
    sum(`line_items`.quantity) AS `line_items__quantity_total`
  FROM line_items AS `line_items`
  LEFT JOIN (SELECT * FROM products) AS `products` ON `line_items`.product_id = `products`.id
  GROUP BY 1
) AS `q_0`
INNER JOIN (
  SELECT
    `products__keys`.`products__category` AS `products__category`,
    sum(`products`.price) AS `products__price_total`
  FROM (
    SELECT DISTINCT
      `products`.category AS `products__category`,
      `products`.id AS `products__pk_0`
    FROM line_items AS `line_items`
    LEFT JOIN (SELECT * FROM products) AS `products` ON `line_items`.product_id = `products`.id
  ) AS `products__keys`
  LEFT JOIN (SELECT * FROM products) AS `products` ON `products__keys`.`products__pk_0` = `products`.id
  GROUP BY 1
) AS `q_1` ON `q_0`.`products__category` IS NOT DISTINCT FROM `q_1`.`products__category`
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: []
