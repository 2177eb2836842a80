SELECT
  "orders".id AS "orders__id",
  "orders".status AS "orders__status",
  "orders".amount AS "orders__total_amount"
FROM orders AS "orders"
ORDER BY 1 ASC NULLS LAST
OFFSET 1
LIMIT 3
-- params: []
