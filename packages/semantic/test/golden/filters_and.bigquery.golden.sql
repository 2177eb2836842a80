SELECT
  `orders`.status AS `orders__status`,
  count(*) AS `orders__count`
FROM orders AS `orders`
WHERE `orders`.status IN (@p1, @p2) AND `orders`.amount >= @p3 AND `orders`.created_at < CAST(@p4 AS TIMESTAMP)
GROUP BY 1
ORDER BY 1 ASC NULLS LAST
LIMIT 10000
-- params: ["completed","pending",50,"2024-03-01 00:00:00.000"]
