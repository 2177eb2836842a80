SELECT
  count(*) AS `orders__count`
FROM orders AS `orders`
WHERE `orders`.status = $1 OR (`orders`.amount > $2 AND (`orders`.status <> $3 OR `orders`.status IS NULL))
LIMIT 10000
-- params: ["cancelled",150,"pending"]
