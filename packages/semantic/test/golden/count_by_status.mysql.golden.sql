SELECT * FROM (
  SELECT
    "orders".status AS "orders__status",
    count(*) AS "orders__count",
    sum("orders".amount) AS "orders__total_amount"
  FROM orders AS "orders"
  GROUP BY 1
) AS "ordered"
ORDER BY "orders__count" IS NULL DESC, "orders__count" DESC
LIMIT 10000
-- params: []
