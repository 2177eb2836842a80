SELECT
  CASE WHEN `orders`.amount >= 100 THEN @p1 ELSE @p2 END AS `orders__size`,
  `orders`.amount >= 100 AS `orders__is_big`,
  count(*) AS `orders__count`
FROM orders AS `orders`
GROUP BY 1, 2
ORDER BY 1 ASC NULLS LAST, 2 ASC NULLS LAST
LIMIT 10000
-- params: ["big","small"]
