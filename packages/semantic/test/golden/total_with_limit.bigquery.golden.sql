SELECT
  `customers`.name AS `orders__customer_name`,
  count(*) AS `orders__count`
FROM orders AS `orders`
LEFT JOIN customers AS `customers` ON `orders`.customer_id = `customers`.id
GROUP BY 1
ORDER BY 1 ASC NULLS LAST
LIMIT 2
-- params: []
-- total:
SELECT
  count(*) AS `total_count`
FROM (
  SELECT
    `customers`.name AS `orders__customer_name`,
    count(*) AS `orders__count`
  FROM orders AS `orders`
  LEFT JOIN customers AS `customers` ON `orders`.customer_id = `customers`.id
  GROUP BY 1
) AS `original_query`
-- total params: []
