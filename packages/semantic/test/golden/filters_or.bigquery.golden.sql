SELECT
  count(*) AS `orders__count`
FROM orders AS `orders`
WHERE `orders`.status = @p1 OR (`orders`.amount > @p2 AND (`orders`.status <> @p3 OR `orders`.status IS NULL))
LIMIT 10000
-- params: ["cancelled",150,"pending"]
