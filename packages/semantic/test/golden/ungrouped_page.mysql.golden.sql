SELECT * FROM (
  SELECT
    "orders".id AS "orders__id",
    "orders".status AS "orders__status",
    "orders".amount AS "orders__total_amount"
  FROM orders AS "orders"
) AS "ordered"
ORDER BY "orders__id" IS NULL, "orders__id" ASC
LIMIT 3
OFFSET 1
-- params: []
